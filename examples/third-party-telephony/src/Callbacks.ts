/**
 * Acme's `webhooks`: status callbacks and incoming calls, both signed; the pure parts (status names,
 * events, the signature) are plain functions to unit-test.
 *
 * Status callbacks are JSON `{call_id, status, timestamp, duration?, cause?}`, incoming calls JSON
 * `{event: "call.incoming", account_id, call_id, from, to}`, both signed with
 * `Acme-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with webhook_secret>`.
 */
import {
  type CallEvent,
  type CallOutcome,
  type ProviderWebhooks,
  TelephonyError,
  type WebhookRequest
} from "@agentline/telephony-kit/TelephonyProvider"
import { Clock, Effect, Either, Schema } from "effect"
import * as Crypto from "node:crypto"
import * as Answer from "./Answer.js"
import type { AcmeConfig } from "./Config.js"

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

/** Header lookup that does not depend on how the server spelled the header name. */
export const header = (request: WebhookRequest, wanted: string): string | undefined => {
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === wanted) return value
  return undefined
}

// ------------------------------------------------------------------------------------------ webhooks

const failure = (message: string, cause?: unknown) =>
  new TelephonyError({ provider: "acme", message, retryable: false, ...(cause !== undefined ? { cause } : {}) })

const decodeJson = <A, I>(schema: Schema.Schema<A, I>, rawBody: Uint8Array, what: string) =>
  Either.mapLeft(Schema.decodeUnknownEither(Schema.parseJson(schema))(new TextDecoder().decode(rawBody)), (cause) => failure(`not an Acme ${what}`, cause))

export const webhooks: ProviderWebhooks<AcmeConfig> = {
  // Acme signs the body and a timestamp (not the URL); both webhooks use the same scheme.
  verify: ({ config, request }) =>
    Effect.map(Clock.currentTimeMillis, (now) => verify(config.webhook_secret, header(request, "acme-signature"), request.rawBody, now)),
  parseStatus: ({ request }) => Either.map(decodeJson(AcmeCallback, request.rawBody, "status callback"), toEvents),
  parseInbound: ({ request }) =>
    Either.map(decodeJson(AcmeIncomingCall, request.rawBody, "incoming call"), (call) => ({
      accountId: call.account_id,
      providerCallId: call.call_id,
      from: call.from,
      to: call.to
    })),
  answer: ({ instruction }) => Answer.answer(instruction)
}
