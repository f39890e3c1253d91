/**
 * The Acme Voice wire protocol (pure parts, unit-test these): its configuration, status names,
 * callbacks and their signature, incoming-call webhooks, and its call-flow documents.
 *
 * Status callbacks are JSON `{call_id, status, timestamp, duration?, cause?}`, incoming calls JSON
 * `{event: "call.incoming", account_id, call_id, from, to}`, both signed with
 * `Acme-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with webhook_secret>`.
 */
import type {
  CallEvent,
  CallInstruction,
  CallOutcome,
  ProviderField,
  WebhookRequest,
  WebhookResponse
} from "@agentline/telephony-kit/TelephonyProvider"
import { Schema } from "effect"
import * as Crypto from "node:crypto"

// ---------------------------------------------------------------------------------------- the config

const required = (name: string) => Schema.Trim.pipe(Schema.nonEmptyString({ message: () => `${name} must not be empty` }))

export const AcmeConfig = Schema.Struct({
  base_url: required("base_url").pipe(
    Schema.pattern(/^https?:\/\/[^/\s]+(\/\S*)?$/, { message: () => "base_url must be an http:// or https:// URL" })
  ),
  account_id: required("account_id"),
  api_key: required("api_key"),
  webhook_secret: required("webhook_secret")
  // Report every bad field at once; drop keys we do not know (from_numbers, provider, ...).
}).annotations({ parseOptions: { errors: "all", onExcessProperty: "ignore" } })
export type AcmeConfig = typeof AcmeConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  { name: "base_url", label: "API base URL", type: "text", required: true, sensitive: false, description: "e.g. https://api.acme-voice.example" },
  { name: "account_id", label: "Account ID", type: "text", required: true, sensitive: false, description: "Identifies the account in inbound webhooks" },
  { name: "api_key", label: "API key", type: "password", required: true, sensitive: true },
  { name: "webhook_secret", label: "Webhook secret", type: "password", required: true, sensitive: true, description: "Signs status callbacks" }
]

// --------------------------------------------------------------------------- pure parts (unit-test these)

/** Acme's call statuses and what they mean in Agentline's terms. */
export const AcmeStatus = Schema.Literal(
  "queued",
  "initiated",
  "ringing",
  "answered",
  "completed",
  "busy",
  "no-answer",
  "machine",
  "failed",
  "canceled"
)
export type AcmeStatus = typeof AcmeStatus.Type

export const finalOutcomes: Partial<Record<AcmeStatus, CallOutcome>> = {
  completed: "completed",
  busy: "busy",
  "no-answer": "no_answer",
  machine: "voicemail",
  failed: "failed",
  canceled: "canceled"
}

export const AcmeCallback = Schema.Struct({
  call_id: Schema.String,
  status: AcmeStatus,
  timestamp: Schema.DateTimeUtc,
  duration: Schema.optional(Schema.NonNegative),
  cause: Schema.optional(Schema.String)
})
export type AcmeCallback = typeof AcmeCallback.Type

/** One callback as normalized events: none for `queued`, one for everything else. */
export const toEvents = (callback: AcmeCallback): ReadonlyArray<CallEvent> => {
  const at = callback.timestamp.epochMillis
  const providerCallId = callback.call_id
  const outcome = finalOutcomes[callback.status]
  if (outcome !== undefined) {
    return [{
      type: "ended",
      providerCallId,
      at,
      outcome,
      // Acme reports a duration for unanswered calls too (time spent ringing); ours is talk time.
      durationSeconds: outcome === "completed" || outcome === "voicemail" ? callback.duration ?? 0 : 0,
      ...(callback.cause !== undefined ? { hangupCause: callback.cause } : {})
    }]
  }
  switch (callback.status) {
    case "initiated":
    case "ringing":
    case "answered":
      return [{ type: callback.status, providerCallId, at }]
    default:
      return []
  }
}

/** The `Acme-Signature` header value for a body at a time: what Acme sends, and what tests sign with. */
export const sign = (secret: string, unixSeconds: number, rawBody: Uint8Array): string => {
  const mac = Crypto.createHmac("sha256", secret).update(`${unixSeconds}.`).update(rawBody).digest("hex")
  return `t=${unixSeconds},v1=${mac}`
}

/** Callbacks older (or newer) than this are refused, so a captured callback cannot be replayed later. */
export const signatureToleranceSeconds = 300

/** Whether `header` is a valid signature of `rawBody` at `nowMillis`. Constant-time on the MAC. */
export const verify = (secret: string, header: string | undefined, rawBody: Uint8Array, nowMillis: number): boolean => {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? "")
  if (match === null) return false
  const t = Number(match[1])
  if (Math.abs(nowMillis / 1000 - t) > signatureToleranceSeconds) return false
  const expected = Buffer.from(sign(secret, t, rawBody).slice(-64), "hex")
  return Crypto.timingSafeEqual(expected, Buffer.from(match[2]!, "hex"))
}

/** An inbound call as Acme announces it to a number's voice URL (signed like status callbacks). */
export const AcmeIncomingCall = Schema.Struct({
  event: Schema.Literal("call.incoming"),
  account_id: Schema.String,
  call_id: Schema.String,
  from: Schema.String,
  to: Schema.String
})

/**
 * Acme's call-flow document, returned to an incoming-call webhook or sent inline with a new call:
 * a list of actions it runs in order.
 */
export const actions = (instruction: CallInstruction): ReadonlyArray<Record<string, unknown>> => {
  switch (instruction._tag) {
    case "ConnectMediaStream":
      return [{ type: "stream", url: instruction.url, params: instruction.parameters }]
    case "KeepOpen":
      // No voice runtime: hold the line until the callee hangs up (Acme caps a pause at four hours).
      return [{ type: "pause", seconds: 14_400 }]
    case "Reject":
      return [{ type: "reject", reason: instruction.reason }]
  }
}

export const answer = (instruction: CallInstruction): WebhookResponse => ({
  status: 200,
  contentType: "application/json",
  body: JSON.stringify({ actions: actions(instruction) })
})

/** Header lookup that does not depend on how the server spelled the header name. */
export const header = (request: WebhookRequest, wanted: string): string | undefined => {
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === wanted) return value
  return undefined
}
