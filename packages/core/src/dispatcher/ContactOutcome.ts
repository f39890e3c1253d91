/**
 * What happens to a campaign contact after one call attempt ends: the pure rule, tested exhaustively.
 *
 * - `completed`: reached → `done`.
 * - `busy`, `no_answer`, `voicemail`: retried after `retry_delay_seconds` while retries are enabled,
 *   the outcome's own flag is on and fewer than `max_retries` retries were made; else `exhausted`.
 * - `failed`, `canceled`: never retried → `exhausted`.
 * - `interrupted` (fate unknown after a crash): final, never re-dialed → `interrupted`.
 *
 * `max_retries` counts retries, so at most `max_retries + 1` attempts are made.
 */
import type { RetryConfig } from "@agentline/api/campaigns/CampaignSettings"
import type { CallOutcome } from "@agentline/telephony-kit/TelephonyProvider"

export type AttemptResult = CallOutcome | "interrupted"

export type ContactNext =
  | { readonly _tag: "Retry"; readonly at: number }
  | { readonly _tag: "Final"; readonly state: "done" | "exhausted" | "interrupted"; readonly reached: boolean }

export const retryFlagOf = (outcome: AttemptResult, policy: RetryConfig): boolean => {
  switch (outcome) {
    case "busy":
      return policy.retry_on_busy
    case "no_answer":
      return policy.retry_on_no_answer
    case "voicemail":
      return policy.retry_on_voicemail
    default:
      return false
  }
}

/** `attemptsMade` includes the attempt that just ended (1 after the first call). */
export const nextForContact = (
  outcome: AttemptResult,
  attemptsMade: number,
  policy: RetryConfig,
  nowMillis: number
): ContactNext => {
  if (outcome === "completed") return { _tag: "Final", state: "done", reached: true }
  if (outcome === "interrupted") return { _tag: "Final", state: "interrupted", reached: false }
  const retriesMade = attemptsMade - 1
  if (policy.enabled && retryFlagOf(outcome, policy) && retriesMade < policy.max_retries) {
    return { _tag: "Retry", at: nowMillis + policy.retry_delay_seconds * 1000 }
  }
  return { _tag: "Final", state: "exhausted", reached: false }
}

/** Tags recorded on the run's `gathered_context.call_tags` (the reference's vocabulary). */
export const callTags = (outcome: AttemptResult, attemptNumber: number): ReadonlyArray<string> => {
  const tags: Array<string> = []
  if (outcome === "completed") tags.push("connected")
  else tags.push("not_connected", `telephony_${outcome}`)
  if (outcome === "voicemail") tags.push("voicemail_detected")
  if (attemptNumber > 1) tags.push("retry")
  return tags
}
