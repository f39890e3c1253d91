/**
 * The simulator's webhooks (pure), shaped like a real carrier's so the whole path can be tested:
 *
 * - status callbacks: JSON `{call_id, event, outcome?, duration?}`;
 * - inbound calls: JSON `{account_id, call_id, from, to}`;
 * - signatures (when the configuration has a `webhook_secret`): `X-Simulator-Signature` is the hex
 *   HMAC-SHA256 of the FULL public URL (query included), a newline and the raw body, as Twilio and
 *   Plivo sign theirs; a request to another URL or with another body does not verify;
 * - answers: JSON documents `{"action": "connect", "url", "parameters"}`, `{"action": "keep_open"}`
 *   or `{"action": "reject", "reason"}`.
 */
import {
  CallOutcome,
  type CallEvent,
  type CallInstruction,
  type InboundCall,
  TelephonyError,
  type WebhookRequest,
  type WebhookResponse
} from "@agentline/telephony-kit/TelephonyProvider"
import { Either, ParseResult, Schema } from "effect"
import * as Crypto from "node:crypto"

export const SIGNATURE_HEADER = "x-simulator-signature"

export const error = (message: string) => new TelephonyError({ provider: "simulator", message, retryable: false })

/** The signature of a request to `url` with `rawBody` under `secret`: what a caller sends, what we check. */
export const sign = (secret: string, url: string, rawBody: Uint8Array): string =>
  Crypto.createHmac("sha256", secret).update(url).update("\n").update(rawBody).digest("hex")

/** Header lookup that does not depend on how the server spelled the header name. */
const header = (request: WebhookRequest, wanted: string): string | undefined => {
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === wanted) return value
  return undefined
}

/** Whether `request` is signed with `secret` (any request is, when there is no secret). Constant-time. */
export const verify = (secret: string | undefined, request: WebhookRequest): boolean => {
  if (secret === undefined || secret === "") return true
  const given = header(request, SIGNATURE_HEADER) ?? ""
  if (!/^[0-9a-f]{64}$/.test(given)) return false
  return Crypto.timingSafeEqual(Buffer.from(sign(secret, request.url, request.rawBody), "hex"), Buffer.from(given, "hex"))
}

/** Status callback body, so tests can drive calls over HTTP too. */
export const CallbackBody = Schema.Struct({
  call_id: Schema.String.pipe(Schema.minLength(1)),
  event: Schema.Literal("initiated", "ringing", "answered", "ended"),
  outcome: Schema.optional(CallOutcome),
  duration: Schema.optional(Schema.NonNegative)
})
export type CallbackBody = typeof CallbackBody.Type

export const InboundBody = Schema.Struct({
  account_id: Schema.String.pipe(Schema.minLength(1)),
  call_id: Schema.String.pipe(Schema.minLength(1)),
  from: Schema.String,
  to: Schema.String.pipe(Schema.minLength(1))
})

const decoded = <A, I>(schema: Schema.Schema<A, I>, what: string, request: WebhookRequest): Either.Either<A, TelephonyError> =>
  Schema.decodeUnknownEither(Schema.parseJson(schema), { errors: "all" })(new TextDecoder().decode(request.rawBody)).pipe(
    Either.mapLeft((e) => error(`bad simulator ${what}: ${ParseResult.TreeFormatter.formatErrorSync(e)}`))
  )

/** A status callback as its one event, at `at`. */
export const statusEvent = (request: WebhookRequest, at: number): Either.Either<CallEvent, TelephonyError> =>
  Either.flatMap(decoded(CallbackBody, "callback", request), (body): Either.Either<CallEvent, TelephonyError> => {
    if (body.event !== "ended") return Either.right({ type: body.event, providerCallId: body.call_id, at })
    if (body.outcome === undefined) return Either.left(error("bad simulator callback: an ended event needs an outcome"))
    return Either.right({ type: "ended", providerCallId: body.call_id, at, outcome: body.outcome, durationSeconds: body.duration ?? 0 })
  })

export const inboundCall = (request: WebhookRequest): Either.Either<InboundCall, TelephonyError> =>
  Either.map(decoded(InboundBody, "inbound call", request), (body) => ({
    accountId: body.account_id,
    providerCallId: body.call_id,
    from: body.from,
    to: body.to
  }))

export const answer = (instruction: CallInstruction): WebhookResponse => {
  const document = instruction._tag === "ConnectMediaStream"
    ? { action: "connect", url: instruction.url, parameters: instruction.parameters }
    : instruction._tag === "KeepOpen"
    ? { action: "keep_open" }
    : { action: "reject", reason: instruction.reason }
  return { status: 200, contentType: "application/json", body: JSON.stringify(document) }
}
