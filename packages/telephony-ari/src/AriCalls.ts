/**
 * Pure parts of ARI calling: the dial string of a number, the `appArgs` that tie a Stasis channel to
 * its attempt, ARI's event timestamps, and the Q.850 hang-up causes Asterisk reports on
 * `ChannelDestroyed` mapped to the normalized outcomes.
 */
import type { CallOutcome } from "@agentline/telephony-kit/TelephonyProvider"

/** What a number is dialed through when the configuration says nothing: a PJSIP endpoint of that name. */
export const DEFAULT_DIAL_STRING = "PJSIP/{number}"

/**
 * A dial-string template is a channel technology, a slash and a resource naming `{number}` (the
 * normalized address, `+14155550100`) or `{digits}` (the same without `+`): `PJSIP/{number}@trunk`,
 * `PJSIP/trunk/sip:{digits}@carrier.example`, `Local/{digits}@from-internal` (FreePBX's outbound
 * routes), `SIP/{number}`. Whitespace, commas and `&` are refused: ARI would read them as separators.
 */
export const DIAL_TEMPLATE = /^[A-Za-z][A-Za-z0-9_-]*\/[^\s,&]*\{(number|digits)\}[^\s,&]*$/

export const validDialTemplate = (template: string): boolean => DIAL_TEMPLATE.test(template)

/**
 * The `endpoint` of `POST /ari/channels` for `to`. An address that already names a channel
 * technology (`PJSIP/6001`, `SIP/...`, `Local/...`) is dialed as it is; anything else goes through the
 * template. Characters ARI or the dialplan would misread are refused (`undefined`).
 */
export const dialString = (template: string, to: string): string | undefined => {
  const address = to.trim()
  if (address === "" || /[\s,&{}]/.test(address)) return undefined
  if (/^(PJSIP|SIP|IAX2|Local|DAHDI)\//i.test(address)) return address
  return template.replaceAll("{number}", address).replaceAll("{digits}", address.replace(/^\+/, ""))
}

/** The Stasis `appArgs` of an outbound channel: which attempt it is (`attempt_id=42`). */
export const appArgs = (attemptId: number) => `attempt_id=${attemptId}`

/** The attempt named in a StasisStart's `args`, if any. */
export const attemptOfArgs = (args: ReadonlyArray<string>): number | undefined => {
  for (const arg of args) {
    const match = /^attempt_id=([1-9][0-9]{0,15})$/.exec(arg.trim())
    if (match !== null) return Number(match[1])
  }
  return undefined
}

/**
 * An ARI timestamp as epoch milliseconds. Asterisk writes `2025-01-01T12:00:00.123+0000` (no colon in
 * the offset, which `Date.parse` does not read everywhere); `fallback` when it is missing or unreadable.
 */
export const timestampMillis = (timestamp: unknown, fallback: number): number => {
  if (typeof timestamp !== "string") return fallback
  const parsed = Date.parse(timestamp.replace(/([+-]\d\d)(\d\d)$/, "$1:$2"))
  return Number.isNaN(parsed) ? fallback : parsed
}

/**
 * The outcome of a channel that was never answered (never entered Stasis), from its Q.850 cause:
 * 17 user busy and 21 call rejected are busy (the callee refused, a retry may reach them), 18 no user
 * response, 19 no answer, 20 subscriber absent are no_answer; everything else (1 unallocated, 3 no
 * route, 27 out of order, 28 invalid format, 34 congestion, 38 network out of order, 41 temporary
 * failure, 127 interworking, 16 without an answer ...) could not be connected: failed.
 */
export const unansweredOutcome = (cause: number | undefined): CallOutcome => {
  switch (cause) {
    case 17:
    case 21:
      return "busy"
    case 18:
    case 19:
    case 20:
      return "no_answer"
    default:
      return "failed"
  }
}

/**
 * How a call ended: answered calls complete whatever the cause (someone hung up); a call we hung up
 * before it was answered is canceled; otherwise the cause decides.
 */
export const outcomeOf = (input: {
  readonly answered: boolean
  readonly canceledByUs: boolean
  readonly cause: number | undefined
}): CallOutcome => (input.answered ? "completed" : input.canceledByUs ? "canceled" : unansweredOutcome(input.cause))

/** The cause for the run's log: `17 User busy`, or the number alone. */
export const causeText = (cause: number | undefined, text: unknown): string | undefined =>
  cause === undefined ? undefined : typeof text === "string" && text !== "" ? `${cause} ${text}` : String(cause)
