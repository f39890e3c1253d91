/**
 * What one adapter instance saw of recent calls, because Telnyx's webhooks do not repeat it: the
 * hang-up does not say when the call was answered (talk time), the call status API says whether a call
 * is alive but not how it ended (`calls.get` after a hang-up), and an answering-machine verdict ends a
 * call before its hang-up arrives (which must then report the same end). Bounded: the oldest calls are
 * forgotten first. Another process (or this one after a restart) has not seen them; the adapter then
 * falls back to what the webhook itself says, and `get` to Unknown.
 */
import type { CallOutcome } from "@agentline/telephony-kit/TelephonyProvider"

export interface Ended {
  readonly outcome: CallOutcome
  readonly durationSeconds: number
  readonly hangupCause?: string | undefined
}

export interface CallMemory {
  readonly answered: (callId: string, at: number) => void
  readonly answeredAt: (callId: string) => number | undefined
  /** Records the end of a call unless one is known; the end that counts (the first one). */
  readonly ended: (callId: string, end: Ended) => Ended
  readonly endOf: (callId: string) => Ended | undefined
}

const remember = <V>(map: Map<string, V>, limit: number, key: string, value: V) => {
  map.delete(key)
  map.set(key, value)
  if (map.size > limit) map.delete(map.keys().next().value!)
}

export const make = (limit = 10_000): CallMemory => {
  const answers = new Map<string, number>()
  const ends = new Map<string, Ended>()
  return {
    answered: (callId, at) => {
      if (!answers.has(callId)) remember(answers, limit, callId, at)
    },
    answeredAt: (callId) => answers.get(callId),
    ended: (callId, end) => {
      const known = ends.get(callId)
      if (known !== undefined) return known
      remember(ends, limit, callId, end)
      return end
    },
    endOf: (callId) => ends.get(callId)
  }
}
