/**
 * Twilio's `webhooks`: requests signed with `X-Twilio-Signature` over the full public URL, status
 * callbacks and incoming calls as form posts, answers as TwiML. The call progress (status callbacks
 * and the answer request) as normalized call events is pure (`parseStatus`).
 *
 * `CallStatus` moves `queued → initiated → ringing → in-progress → completed`, or ends `busy`,
 * `no-answer`, `failed` or `canceled`. With answering machine detection, `AnsweredBy` says who picked
 * up; a machine (`machine_start`, `machine_end_*`) ends the call as `voicemail`, a fax as `failed`.
 */
import {
  type CallEvent,
  type CallOutcome,
  type InboundCall,
  type ProviderWebhooks,
  TelephonyError,
  type WebhookRequest
} from "@agentline/telephony-kit/TelephonyProvider"
import { Clock, Effect } from "effect"
import * as Answer from "./Answer.js"
import type { TwilioConfig } from "./Config.js"
import * as Signature from "./Signature.js"
import type { FormParams } from "./Signature.js"
import * as Transfer from "./Transfer.js"

/** Twilio's `AnsweredBy` values that mean an answering machine picked up. */
export const isMachine = (answeredBy: string | undefined): boolean => answeredBy !== undefined && answeredBy.startsWith("machine")

/** Who answered, as the normalized answered event says it. */
export const answeredBy = (value: string | undefined): "human" | "machine" | "fax" | "unknown" | undefined => {
  if (value === undefined || value === "") return undefined
  if (value === "human") return "human"
  if (isMachine(value)) return "machine"
  if (value === "fax") return "fax"
  return "unknown"
}

/** The outcome of a call Twilio reports over with `status`; undefined while it is not over. */
export const outcomeOf = (status: string, answered: string | undefined): CallOutcome | undefined => {
  switch (status) {
    case "completed":
      if (isMachine(answered)) return "voicemail"
      if (answered === "fax") return "failed"
      return "completed"
    case "busy":
      return "busy"
    case "no-answer":
      return "no_answer"
    case "failed":
      return "failed"
    case "canceled":
      return "canceled"
    default:
      return undefined
  }
}

const lookup = (params: FormParams) => {
  const map = new Map<string, string>()
  for (const [name, value] of params) if (!map.has(name)) map.set(name, value)
  return (name: string) => map.get(name)
}

/** When Twilio says the event happened (`Timestamp`, RFC 2822), else `now`. */
const eventTime = (timestamp: string | undefined, now: number): number => {
  const parsed = timestamp === undefined ? Number.NaN : Date.parse(timestamp)
  return Number.isFinite(parsed) ? parsed : now
}

export type ParsedStatus =
  | { readonly _tag: "Events"; readonly events: ReadonlyArray<CallEvent> }
  | { readonly _tag: "Invalid"; readonly reason: string }

/** A status callback's (or answer request's) parameters as events. */
export const parseStatus = (params: FormParams, now: number): ParsedStatus => {
  const get = lookup(params)
  const providerCallId = get("CallSid")
  const status = get("CallStatus")
  if (providerCallId === undefined || providerCallId === "") return { _tag: "Invalid", reason: "Twilio callback without CallSid" }
  if (status === undefined || status === "") return { _tag: "Invalid", reason: "Twilio callback without CallStatus" }
  const at = eventTime(get("Timestamp"), now)
  const answered = get("AnsweredBy")
  switch (status) {
    case "queued":
    case "initiated":
      return { _tag: "Events", events: [{ type: "initiated", providerCallId, at }] }
    case "ringing":
      return { _tag: "Events", events: [{ type: "ringing", providerCallId, at }] }
    case "in-progress": {
      const who = answeredBy(answered)
      return { _tag: "Events", events: [{ type: "answered", providerCallId, at, ...(who !== undefined ? { answeredBy: who } : {}) }] }
    }
  }
  const outcome = outcomeOf(status, answered)
  if (outcome === undefined) return { _tag: "Invalid", reason: `unknown Twilio CallStatus ${JSON.stringify(status)}` }
  const duration = Number(get("CallDuration") ?? "0")
  const sip = get("SipResponseCode")
  const cause = [status, answered !== undefined && answered !== "" ? `answered by ${answered}` : undefined, sip !== undefined ? `SIP ${sip}` : undefined]
    .filter((part) => part !== undefined)
    .join(", ")
  return {
    _tag: "Events",
    events: [{
      type: "ended",
      providerCallId,
      at,
      outcome,
      durationSeconds: Number.isFinite(duration) && duration > 0 ? duration : 0,
      hangupCause: cause
    }]
  }
}

const refused = (message: string) => new TelephonyError({ provider: "twilio", message, retryable: false })

const header = (request: WebhookRequest, name: string): string | undefined => {
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === name) return value
  return undefined
}

/** An incoming call's routing key, from Twilio's voice webhook. */
export const parseInbound = (params: FormParams): InboundCall | string => {
  const get = lookup(params)
  const accountId = get("AccountSid")
  const to = get("To") ?? get("Called")
  const from = get("From") ?? get("Caller") ?? ""
  const providerCallId = get("CallSid")
  if (accountId === undefined || to === undefined || providerCallId === undefined) {
    return "not a Twilio incoming call: AccountSid, To and CallSid are required"
  }
  const direction = get("Direction")
  if (direction !== undefined && direction !== "inbound") return `not an incoming call: Direction is ${direction}`
  return { accountId, to, from, providerCallId }
}

export const webhooks: ProviderWebhooks<TwilioConfig> = {
  verify: ({ config, request }) =>
    Effect.sync(() => Signature.isValid(config.auth_token, header(request, "x-twilio-signature"), request.url, Signature.formParams(request.rawBody))),
  parseStatus: ({ request }) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const parsed = parseStatus(Signature.formParams(request.rawBody), now)
      return parsed._tag === "Events" ? Effect.succeed(parsed.events) : Effect.fail(refused(parsed.reason))
    }),
  parseInbound: ({ request }) =>
    Effect.suspend(() => {
      const call = parseInbound(Signature.formParams(request.rawBody))
      return typeof call === "string" ? Effect.fail(refused(call)) : Effect.succeed(call)
    }),
  answer: ({ instruction }) => ({ status: 200, contentType: "text/xml", body: Answer.answer(instruction) }),
  parseTransferResult: ({ request }) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const result = Transfer.parseResult(Signature.formParams(request.rawBody), now)
      return typeof result === "string" ? Effect.fail(refused(result)) : Effect.succeed(result)
    }),
  transferAnswer: () => Transfer.resultAnswer()
}
