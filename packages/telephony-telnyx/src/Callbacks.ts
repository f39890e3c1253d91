/**
 * Telnyx's `webhooks`: Ed25519 signatures (`Signature.ts`); status webhooks as events, remembering in
 * `CallMemory` what later webhooks of a call will not say; an inbound call answered, streamed or
 * rejected by command (`instructCall`: Telnyx ignores what a webhook is answered with).
 *
 * Telnyx Call Control webhooks as normalized call events are pure (`toEvents`). Every webhook is JSON:
 *
 *   {"data": {"record_type": "event", "event_type": "call.hangup", "id", "occurred_at",
 *             "payload": {call_control_id, connection_id, client_state, from, to, direction, state,
 *                         hangup_cause, hangup_source, sip_hangup_cause, start_time, result, ...}},
 *    "meta": {"attempt", "delivered_to"}}
 *
 * Call Control has no ringing event: an outbound call reports `call.initiated`, then `call.answered`
 * or straight `call.hangup`. The outcome of a hang-up follows its `hangup_cause` unless the call was
 * answered (then it is `completed`, whatever the cause). Answering-machine verdicts arrive as their
 * own webhooks (`call.machine.*`): a machine ends the call as `voicemail` right away (and the adapter
 * hangs it up), a fax as `failed`; the later hang-up repeats the end, which consumers ignore.
 */
import {
  type CallEvent,
  type CallInstruction,
  type CallOutcome,
  type InboundCall,
  type ProviderWebhooks,
  TelephonyError,
  type WebhookRequest
} from "@agentline/telephony-kit/TelephonyProvider"
import { Clock, Effect, Either, Option, ParseResult, Schema } from "effect"
import type * as CallMemory from "./CallMemory.js"
import type { Calls } from "./Calls.js"
import { instructionParameters } from "./Calls.js"
import type { TelnyxConfig } from "./Config.js"
import * as Signature from "./Signature.js"

export const error = (message: string, retryable = false) => new TelephonyError({ provider: "telnyx", message, retryable })

const Text = Schema.String
const OptionalText = Schema.optional(Schema.NullOr(Text))

export const WebhookPayload = Schema.Struct({
  call_control_id: Schema.optional(Text),
  call_leg_id: OptionalText,
  call_session_id: OptionalText,
  connection_id: OptionalText,
  client_state: OptionalText,
  from: OptionalText,
  to: OptionalText,
  direction: OptionalText,
  state: OptionalText,
  start_time: OptionalText,
  hangup_cause: OptionalText,
  hangup_source: OptionalText,
  sip_hangup_cause: OptionalText,
  result: Schema.optional(Schema.Unknown)
})
export type WebhookPayload = typeof WebhookPayload.Type

export const Webhook = Schema.Struct({
  data: Schema.Struct({
    record_type: Schema.optional(Text),
    event_type: Text,
    id: Schema.optional(Text),
    occurred_at: OptionalText,
    payload: Schema.optionalWith(WebhookPayload, { default: () => ({}) })
  }),
  meta: Schema.optional(Schema.Unknown)
})
export type Webhook = typeof Webhook.Type

/** A webhook body, decoded; not JSON or not a Telnyx event: a non-retryable error. */
export const decodeWebhook = (rawBody: Uint8Array): Either.Either<Webhook, TelephonyError> =>
  Schema.decodeUnknownEither(Schema.parseJson(Webhook))(new TextDecoder().decode(rawBody)).pipe(
    Either.mapLeft((e) => error(`not a Telnyx webhook: ${ParseResult.TreeFormatter.formatErrorSync(e)}`))
  )

/** Event types arrive dotted, and some (streaming) sometimes with underscores: compare them dotted. */
export const eventType = (webhook: Webhook): string => webhook.data.event_type.replace(/_/g, ".")

/** When the event happened (epoch ms), or `fallback` when Telnyx did not say or said nonsense. */
export const occurredAt = (webhook: Webhook, fallback: number): number => {
  const at = webhook.data.occurred_at == null ? Number.NaN : Date.parse(webhook.data.occurred_at)
  return Number.isFinite(at) ? at : fallback
}

/** The outcome of a call hung up before it was answered, by Telnyx's `hangup_cause`. */
export const unansweredOutcome = (cause: string | null | undefined): CallOutcome => {
  switch (cause) {
    case "user_busy":
      return "busy"
    case "timeout":
    case "no_answer":
      return "no_answer"
    case "originator_cancel":
      return "canceled"
    // The call was connected, so it was answered even if we missed `call.answered`.
    case "normal_clearing":
    case "time_limit":
      return "completed"
    default:
      // call_rejected, not_found, unspecified and causes Telnyx may add: the call could not be connected.
      return "failed"
  }
}

/** Whether a cause means the call had been connected (answered). */
export const connected = (cause: string | null | undefined) => cause === "normal_clearing" || cause === "time_limit"

/** The cause as the run's logs show it: `user_busy (SIP 486)`. */
export const describeCause = (payload: WebhookPayload): string | undefined => {
  const cause = payload.hangup_cause ?? undefined
  const sip = payload.sip_hangup_cause
  if (cause === undefined) return undefined
  return sip != null && sip !== "" && sip !== "unspecified" ? `${cause} (SIP ${sip})` : cause
}

/** An answering machine verdict: the outcome it ends the call with, if it ends it. */
export const machineVerdict = (type: string, result: unknown): Option.Option<{ readonly outcome: CallOutcome; readonly detail: string }> => {
  const verdict = typeof result === "string" ? result : ""
  switch (type) {
    case "call.machine.detection.ended":
      return verdict === "machine" ? Option.some({ outcome: "voicemail", detail: "machine" }) : Option.none()
    case "call.machine.greeting.ended":
      return verdict === "beep_detected" || verdict === "ended"
        ? Option.some({ outcome: "voicemail", detail: `machine_greeting_${verdict}` })
        : Option.none()
    case "call.machine.premium.detection.ended":
      return verdict === "machine"
        ? Option.some({ outcome: "voicemail", detail: "machine" })
        : verdict === "fax_detected"
        ? Option.some({ outcome: "failed", detail: "fax_detected" })
        : Option.none()
    case "call.machine.premium.greeting.ended":
      return verdict === "beep_detected" ? Option.some({ outcome: "voicemail", detail: "machine_beep_detected" }) : Option.none()
    default:
      return Option.none()
  }
}

/** What this process remembers of a call (Telnyx's hang-up does not say when the call was answered). */
export interface Seen {
  readonly answeredAt: number | undefined
}

/** Talk time in seconds, to the millisecond (webhooks carry microseconds; durations are stored in milliseconds). */
const seconds = (from: number, to: number) => Math.max(0, Math.round(to - from) / 1000)

/**
 * A webhook as normalized events. `seen` is what this process saw of the call before; when it did not
 * see the answer (another process took that webhook), an answered call's talk time is counted from the
 * payload's `start_time`, which may include the ringing.
 */
export const toEvents = (webhook: Webhook, seen: Seen, now: number): ReadonlyArray<CallEvent> => {
  const payload = webhook.data.payload
  const id = payload.call_control_id
  if (id === undefined || id === "") return []
  const at = occurredAt(webhook, now)
  const type = eventType(webhook)
  switch (type) {
    case "call.initiated":
      return [{ type: "initiated", providerCallId: id, at }]
    case "call.answered":
      return [{ type: "answered", providerCallId: id, at }]
    case "call.hangup": {
      const answered = seen.answeredAt !== undefined || connected(payload.hangup_cause)
      const outcome = answered ? "completed" : unansweredOutcome(payload.hangup_cause)
      const startedAt = seen.answeredAt ?? (payload.start_time == null ? Number.NaN : Date.parse(payload.start_time))
      const durationSeconds = answered && Number.isFinite(startedAt) ? seconds(startedAt, at) : 0
      const cause = describeCause(payload)
      return [{ type: "ended", providerCallId: id, at, outcome, durationSeconds, ...(cause !== undefined ? { hangupCause: cause } : {}) }]
    }
    default:
      return Option.match(machineVerdict(type, payload.result), {
        onNone: () => [],
        onSome: ({ detail, outcome }) => [{
          type: "ended" as const,
          providerCallId: id,
          at,
          outcome,
          durationSeconds: seen.answeredAt === undefined ? 0 : seconds(seen.answeredAt, at),
          hangupCause: `${type}: ${detail}`
        }]
      })
  }
}

// ------------------------------------------------------------------------------------------ webhooks

const refused = (message: string) => new TelephonyError({ provider: "telnyx", message, retryable: false })

export const makeWebhooks = (calls: Calls, memory: CallMemory.CallMemory): ProviderWebhooks<TelnyxConfig> => {
  /**
   * A status webhook as events, remembering what later webhooks of the call will not say. A machine
   * verdict ends the call (`voicemail`): it is hung up here, as no voice agent is for a machine.
   */
  const parseStatus = ({ config, request }: { readonly config: TelnyxConfig; readonly request: WebhookRequest }) =>
    Effect.gen(function*() {
      const webhook = decodeWebhook(request.rawBody)
      if (Either.isLeft(webhook)) return yield* webhook.left
      const now = yield* Clock.currentTimeMillis
      const callId = webhook.right.data.payload.call_control_id ?? ""
      const events = toEvents(webhook.right, { answeredAt: memory.answeredAt(callId) }, now)
      const settled: Array<CallEvent> = []
      for (const event of events) {
        if (event.type === "answered") memory.answered(event.providerCallId, event.at)
        if (event.type !== "ended") {
          settled.push(event)
          continue
        }
        // Every report of the end says what the first one said (a verdict, then the hang-up it caused).
        const end = memory.ended(event.providerCallId, event)
        settled.push({ ...event, outcome: end.outcome, durationSeconds: end.durationSeconds })
        const machine = eventType(webhook.right).startsWith("call.machine.")
        if (machine && end === event) {
          yield* calls.hangUp({ config, providerCallId: event.providerCallId }).pipe(
            Effect.catchAll((e) => Effect.logWarning(`telnyx: could not hang up the machine-answered call ${event.providerCallId}: ${e.message}`))
          )
        }
      }
      return settled
    })

  const parseInbound = ({ request }: { readonly request: WebhookRequest }) =>
    Effect.suspend(() => {
      const webhook = decodeWebhook(request.rawBody)
      if (Either.isLeft(webhook)) return Effect.fail(webhook.left)
      const type = eventType(webhook.right)
      const { call_control_id, connection_id, direction, from, to } = webhook.right.data.payload
      if (type !== "call.initiated" || direction !== "incoming") {
        return Effect.fail(refused(`not an incoming Telnyx call: ${type}${direction != null ? ` (${direction})` : ""}`))
      }
      if (call_control_id === undefined || connection_id == null || to == null) {
        return Effect.fail(refused("not an incoming Telnyx call: call_control_id, connection_id and to are required"))
      }
      return Effect.succeed<InboundCall>({ accountId: connection_id, to, from: from ?? "", providerCallId: call_control_id })
    })

  /** Telnyx acts on commands, not on webhook answers: answer, stream or reject the call. */
  const instructCall = (
    { callbackUrl, config, instruction, providerCallId }: {
      readonly config: TelnyxConfig
      readonly providerCallId: string
      readonly instruction: CallInstruction
      readonly callbackUrl?: string | undefined
    }
  ) => {
    const webhook = callbackUrl === undefined ? {} : { webhook_url: callbackUrl, webhook_url_method: "POST" }
    const commandId = { command_id: `agentline-${instruction._tag}-${providerCallId}` }
    switch (instruction._tag) {
      case "Reject":
        // Saying `reason` would need the call answered (and billed); a refusal says it in SIP.
        return Effect.asVoid(calls.command(config, providerCallId, "reject", { cause: instruction.busy === true ? "USER_BUSY" : "CALL_REJECTED", ...commandId }, "reject the call"))
      case "KeepOpen":
      case "ConnectMediaStream":
        return Effect.asVoid(calls.command(config, providerCallId, "answer", { ...instructionParameters(instruction, {}), ...webhook, ...commandId }, "answer the call"))
    }
  }

  const keys = new Map<string, ReturnType<typeof Signature.publicKey>>()
  const publicKey = (text: string | undefined) => {
    if (text === undefined) return undefined
    if (!keys.has(text)) keys.set(text, Signature.publicKey(text))
    return keys.get(text)
  }

  return {
    verify: ({ config, request }) =>
      Effect.map(Clock.currentTimeMillis, (now) => Signature.verify(publicKey(config.webhook_public_key), request.headers, request.rawBody, now)),
    parseStatus,
    parseInbound,
    // Telnyx ignores what a webhook is answered with, as long as it is a 2xx; `instructCall` acts.
    answer: () => ({ status: 200, contentType: "application/json", body: "{}" }),
    instructCall
  }
}
