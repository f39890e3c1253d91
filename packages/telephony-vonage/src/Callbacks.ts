/**
 * Vonage's call events as normalized call events (pure).
 *
 * Vonage posts JSON to a call's `event_url` whenever its status changes: `{status, uuid,
 * conversation_uuid, from, to, direction, timestamp, ...}`; `completed` adds `duration` (seconds
 * talked, a string), `start_time`, `end_time`, `rate`, `price`, `network`; failures may add `detail`.
 * Statuses, as `docs/telephony-adapters.md` normalizes them (reference: telephony-providers.md §4):
 *
 * | Vonage | event |
 * |---|---|
 * | `started` | initiated |
 * | `ringing` | ringing |
 * | `answered` | answered |
 * | `human` | answered, answered by a person (machine detection ran) |
 * | `machine` | answered by a machine, then ended `voicemail` (the adapter asks Vonage to hang machines up) |
 * | `completed` | ended `completed`, with `duration` |
 * | `busy`, `rejected` | ended `busy` (`rejected` is the destination refusing the call; Vonage notes that
 * |  | carriers often relay a busy callee as `rejected`) |
 * | `timeout`, `unanswered` | ended `no_answer` |
 * | `cancelled` | ended `canceled` (hung up before it was answered) |
 * | `failed` | ended `failed` |
 *
 * `disconnected` is a leg (our WebSocket leg, a transfer) going away, not the call's end: `completed`
 * follows it. Recording, input, transfer and other action events carry no call status and are ignored,
 * as are statuses this table does not know, and errors reported for a conversation without a call. A
 * body naming neither a call (`uuid`) nor a conversation is not a Vonage event.
 */
import {
  type CallEvent,
  type CallOutcome,
  type CallStatus,
  type InboundCall,
  type ProviderWebhooks,
  TelephonyError,
  type WebhookRequest
} from "@agentline/telephony-kit/TelephonyProvider"
import { Clock, Effect, Either } from "effect"
import * as Answer from "./Answer.js"
import type { VonageConfig } from "./Config.js"
import * as Jwt from "./Jwt.js"

export type Parsed =
  | { readonly _tag: "Events"; readonly events: ReadonlyArray<CallEvent> }
  | { readonly _tag: "Invalid"; readonly reason: string }

const ENDINGS: Record<string, CallOutcome> = {
  completed: "completed",
  busy: "busy",
  rejected: "busy",
  timeout: "no_answer",
  unanswered: "no_answer",
  cancelled: "canceled",
  failed: "failed"
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined

const seconds = (value: unknown): number => {
  const n = Number(value ?? 0)
  return Number.isFinite(n) && n > 0 ? Math.round(n) : 0
}

/** A call's outcome from its Vonage status, if the status is final. */
export const outcomeOf = (status: string): CallOutcome | undefined => ENDINGS[status.toLowerCase()]

/** The events one Vonage event webhook reports (its parsed JSON body), at `now`. */
export const toEvents = (body: unknown, now: number): Parsed => {
  if (!isRecord(body)) return { _tag: "Invalid", reason: "Vonage event is not a JSON object" }
  const providerCallId = text(body.uuid)
  if (providerCallId === undefined) {
    // Vonage also reports errors of a conversation (no call named) to the event URL: nothing to apply.
    return text(body.conversation_uuid) !== undefined
      ? { _tag: "Events", events: [] }
      : { _tag: "Invalid", reason: "Vonage event without a call uuid" }
  }
  const status = (text(body.status) ?? "").toLowerCase()
  const at = now
  switch (status) {
    case "started":
      return { _tag: "Events", events: [{ type: "initiated", providerCallId, at }] }
    case "ringing":
      return { _tag: "Events", events: [{ type: "ringing", providerCallId, at }] }
    case "answered":
      return { _tag: "Events", events: [{ type: "answered", providerCallId, at }] }
    case "human":
      return { _tag: "Events", events: [{ type: "answered", providerCallId, at, answeredBy: "human" }] }
    case "machine": {
      // Machine detection ran synchronously with `behavior: hangup`: Vonage drops the call now, and its
      // `completed` (which says nothing of the machine) comes after this end and changes nothing.
      const detail = text(body.sub_state)
      return {
        _tag: "Events",
        events: [
          { type: "answered", providerCallId, at, answeredBy: "machine" },
          { type: "ended", providerCallId, at, outcome: "voicemail", durationSeconds: 0, hangupCause: detail === undefined ? "machine" : `machine: ${detail}` }
        ]
      }
    }
  }
  const outcome = ENDINGS[status]
  if (outcome === undefined) return { _tag: "Events", events: [] }
  const detail = text(body.detail)
  return {
    _tag: "Events",
    events: [{
      type: "ended",
      providerCallId,
      at,
      outcome,
      durationSeconds: outcome === "completed" ? seconds(body.duration) : 0,
      hangupCause: detail === undefined ? status : `${status}: ${detail}`
    }]
  }
}

/** An event webhook's raw body as events. */
export const parse = (rawBody: string, now: number): Parsed => {
  let json: unknown
  try {
    json = JSON.parse(rawBody)
  } catch {
    return { _tag: "Invalid", reason: "Vonage event is not JSON" }
  }
  return toEvents(json, now)
}

/** A call as `GET /v1/calls/{uuid}` shows it, as the port's call status. */
export const callStatus = (call: { readonly status: string; readonly duration?: unknown }): CallStatus => {
  const outcome = outcomeOf(call.status)
  if (outcome === undefined) return { _tag: "InProgress" }
  return { _tag: "Ended", outcome, durationSeconds: outcome === "completed" ? seconds(call.duration) : 0 }
}

// ------------------------------------------------------------------------------------------ webhooks

const refused = (message: string) => new TelephonyError({ provider: "vonage", message, retryable: false })

const header = (request: WebhookRequest, name: string): string | undefined => {
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === name) return value
  return undefined
}

/** Whether a webhook carries a JWT Vonage signed for this configuration about exactly this body. */
export const isAuthentic = (config: VonageConfig, request: WebhookRequest, nowMillis: number): boolean =>
  Jwt.verifyWebhook({
    token: Jwt.bearer(header(request, "authorization")),
    secret: config.signature_secret ?? "",
    apiKey: config.api_key,
    applicationId: config.application_id,
    body: request.rawBody,
    nowMillis
  })

/** A number as Vonage writes it (digits) in E.164 with `+`, so routing sees the same number either way. */
const e164 = (value: string) => (/^[1-9][0-9]{6,14}$/.test(value) ? `+${value}` : value)

/** An incoming call's answer request (JSON: `to`, `from`, `uuid`, `conversation_uuid`) as its routing key. */
export const inboundCall = (request: WebhookRequest): Either.Either<InboundCall, string> => {
  let body: unknown
  try {
    body = JSON.parse(new TextDecoder().decode(request.rawBody))
  } catch {
    return Either.left("not a Vonage answer request: the body is not JSON")
  }
  if (!isRecord(body)) return Either.left("not a Vonage answer request: the body is not a JSON object")
  // Status events carry `status`; an answer request does not.
  if (body.status !== undefined) return Either.left(`a Vonage call event (${String(body.status)}), not an incoming call`)
  const to = typeof body.to === "string" ? body.to : undefined
  const from = typeof body.from === "string" ? body.from : ""
  const uuid = typeof body.uuid === "string" ? body.uuid : undefined
  // The account is named by the signed JWT (verified later, with the configuration the number routes to).
  const token = Jwt.bearer(header(request, "authorization"))
  const apiKey = token === undefined ? undefined : Jwt.decode(token)?.claims.api_key
  if (to === undefined || uuid === undefined) return Either.left("not a Vonage answer request: to and uuid are required")
  if (typeof apiKey !== "string" || apiKey === "") return Either.left("a Vonage answer request that is not signed (turn signed callbacks on)")
  return Either.right({ accountId: apiKey, to: e164(to), from: e164(from), providerCallId: uuid })
}

/**
 * Vonage's `webhooks`: signed callbacks, a JWT in `Authorization` (HS256 with the signature secret, its
 * `payload_hash` the SHA-256 of the body); events are JSON; answers are NCCOs (`Answer.ts`).
 */
export const webhooks: ProviderWebhooks<VonageConfig> = {
  verify: ({ config, request }) => Effect.map(Clock.currentTimeMillis, (now) => isAuthentic(config, request, now)),
  parseStatus: ({ request }) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const parsed = parse(new TextDecoder().decode(request.rawBody), now)
      return parsed._tag === "Events" ? Effect.succeed(parsed.events) : Effect.fail(refused(parsed.reason))
    }),
  parseInbound: ({ request }) =>
    Effect.suspend(() => Either.match(inboundCall(request), { onLeft: (reason) => Effect.fail(refused(reason)), onRight: Effect.succeed })),
  answer: ({ instruction }) => Answer.answer(instruction)
}
