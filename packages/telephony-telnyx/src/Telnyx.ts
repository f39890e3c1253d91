/**
 * Telnyx (Call Control / Voice API v2): configuration and the calling adapter.
 *
 * - calls: `POST /v2/calls` through the configuration's Call Control Application, status webhooks to
 *   the attempt's callback URL, the media stream inline (`stream_url`, both tracks, bidirectional RTP
 *   in PCMU 8 kHz) and answering machine detection when `amd_enabled`; `actions/hangup`;
 *   `GET /v2/calls/{id}` (alive or not).
 * - webhooks: Ed25519 signatures (`TelnyxSignature.ts`), JSON events (`TelnyxEvents.ts`); an inbound
 *   call is answered, streamed or rejected by command (`instructCall`): Telnyx ignores webhook answers.
 * - media: Telnyx's media-streaming JSON (`TelnyxMedia.ts`).
 * - inbound: the number's Call Control Application and its webhook (`TelnyxNumbers.ts`).
 *
 * The inbound routing key's account id is the connection id (Telnyx webhooks name the application).
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import {
  type CallEvent,
  type CallInstruction,
  type CallStatus,
  type InboundCall,
  type PlaceCall,
  TelephonyError,
  type TelephonyProvider,
  type WebhookRequest
} from "@agentline/telephony-kit/TelephonyProvider"
import { Clock, Effect, Either, Schema } from "effect"
import * as CallMemory from "./CallMemory.js"
import * as ClientState from "./ClientState.js"
import { accountId, fields, TelnyxConfig } from "./TelnyxConfig.js"
import * as Events from "./TelnyxEvents.js"
import * as Media from "./TelnyxMedia.js"
import * as Numbers from "./TelnyxNumbers.js"
import * as Rest from "./TelnyxRest.js"
import * as Signature from "./TelnyxSignature.js"

export * from "./TelnyxConfig.js"
export * as ClientState from "./ClientState.js"
export * as Events from "./TelnyxEvents.js"
export * as Media from "./TelnyxMedia.js"
export * as Rest from "./TelnyxRest.js"
export * as Signature from "./TelnyxSignature.js"

/** How the media stream is asked for, on a dial and on an answer: both tracks, RTP both ways, µ-law 8 kHz. */
export const streamParameters = (url: string) => ({
  stream_url: url,
  stream_track: "both_tracks",
  stream_codec: "PCMU",
  stream_bidirectional_mode: "rtp",
  stream_bidirectional_codec: "PCMU",
  stream_bidirectional_sampling_rate: 8000
})

/** What a dial or an answer carries for an instruction: the stream and our parameters in client_state. */
const instructionParameters = (instruction: CallInstruction, fallback: Readonly<Record<string, string>>) =>
  instruction._tag === "ConnectMediaStream"
    ? { ...streamParameters(instruction.url), client_state: ClientState.encode(instruction.parameters) }
    : { client_state: ClientState.encode(fallback) }

const refused = (message: string) => new TelephonyError({ provider: "telnyx", message, retryable: false })


export type TelnyxProvider = TelephonyProvider<TelnyxConfig> & {
  readonly calls: NonNullable<TelephonyProvider<TelnyxConfig>["calls"]>
  readonly webhooks: NonNullable<TelephonyProvider<TelnyxConfig>["webhooks"]>
  readonly media: NonNullable<TelephonyProvider<TelnyxConfig>["media"]>
  readonly inbound: NonNullable<TelephonyProvider<TelnyxConfig>["inbound"]>
}

/** The adapter; `apiUrl` overrides `AGENTLINE_TELNYX_API_URL` (tests, other endpoints). */
export const make = (options: { readonly apiUrl?: string | undefined } = {}): TelnyxProvider => {
  const rest = Rest.make(options)
  const memory = CallMemory.make()

  /** A command on a call; one that is over already has what hanging up or rejecting wanted. */
  const command = (config: TelnyxConfig, callId: string, action: string, body: Record<string, unknown>, what: string) =>
    Effect.gen(function*() {
      const sent = yield* rest.send({
        apiKey: config.api_key,
        method: "POST",
        path: `/calls/${encodeURIComponent(callId)}/actions/${action}`,
        body,
        schema: Rest.CommandResult,
        what
      })
      if (Either.isRight(sent)) return true
      if (sent.left.code === Rest.CALL_ENDED || sent.left.status === 404) return false
      return yield* Rest.failure(sent.left, what)
    })

  const place = (input: PlaceCall<TelnyxConfig>) =>
    Effect.gen(function*() {
      const connectionId = input.config.connection_id
      if (connectionId === undefined || connectionId === "") {
        return yield* refused("Telnyx places calls through a Call Control Application: set the configuration's connection_id")
      }
      if (input.from === undefined) {
        return yield* refused("Telnyx needs a caller id: add a phone number of this Telnyx account to the configuration")
      }
      const what = `place the call to ${input.to}`
      const created = yield* rest.send({
        apiKey: input.config.api_key,
        method: "POST",
        path: "/calls",
        body: {
          connection_id: connectionId,
          to: input.to,
          from: input.from,
          webhook_url: input.callbackUrl,
          webhook_url_method: "POST",
          // Telnyx ignores a second dial with the same command id: a re-sent request does not dial twice.
          command_id: `agentline-attempt-${input.attemptId}`,
          ...instructionParameters(input.whenAnswered, { attempt_id: String(input.attemptId) }),
          ...(input.config.amd_enabled ? { answering_machine_detection: "detect" } : {})
        },
        schema: Rest.Call,
        what
      })
      if (Either.isLeft(created)) return yield* Rest.failure(created.left, what)
      return { providerCallId: created.right.call_control_id }
    })

  const hangUp = ({ config, providerCallId }: { readonly config: TelnyxConfig; readonly providerCallId: string }) =>
    Effect.asVoid(command(config, providerCallId, "hangup", {}, "hang up the call"))

  /** Transient failures are tried again here: `get` has no error channel, and Unknown means "never re-dial". */
  const get = ({ config, providerCallId }: { readonly config: TelnyxConfig; readonly providerCallId: string }) =>
    rest.send({
      apiKey: config.api_key,
      method: "GET",
      path: `/calls/${encodeURIComponent(providerCallId)}`,
      schema: Rest.Call,
      what: "look the call up"
    }).pipe((found) =>
      ProviderRest.lookUpCall(found, (f) => Rest.failure(f, "look the call up"), (call): CallStatus => {
        if (call.is_alive === true) return { _tag: "InProgress" }
        const end = memory.endOf(providerCallId)
        return end !== undefined
          ? { _tag: "Ended", outcome: end.outcome, durationSeconds: end.durationSeconds }
          : { _tag: "Unknown", reason: "Telnyx says the call is over but not how it ended (its call.hangup webhook says that)" }
      }))

  /**
   * A status webhook as events, remembering what later webhooks of the call will not say. A machine
   * verdict ends the call (`voicemail`): it is hung up here, as no voice agent is for a machine.
   */
  const parseStatus = ({ config, request }: { readonly config: TelnyxConfig; readonly request: WebhookRequest }) =>
    Effect.gen(function*() {
      const webhook = Events.decodeWebhook(request.rawBody)
      if (Either.isLeft(webhook)) return yield* webhook.left
      const now = yield* Clock.currentTimeMillis
      const callId = webhook.right.data.payload.call_control_id ?? ""
      const events = Events.toEvents(webhook.right, { answeredAt: memory.answeredAt(callId) }, now)
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
        const machine = Events.eventType(webhook.right).startsWith("call.machine.")
        if (machine && end === event) {
          yield* hangUp({ config, providerCallId: event.providerCallId }).pipe(
            Effect.catchAll((e) => Effect.logWarning(`telnyx: could not hang up the machine-answered call ${event.providerCallId}: ${e.message}`))
          )
        }
      }
      return settled
    })

  const parseInbound = ({ request }: { readonly request: WebhookRequest }) =>
    Effect.suspend(() => {
      const webhook = Events.decodeWebhook(request.rawBody)
      if (Either.isLeft(webhook)) return Effect.fail(webhook.left)
      const type = Events.eventType(webhook.right)
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
        return Effect.asVoid(command(config, providerCallId, "reject", { cause: instruction.busy === true ? "USER_BUSY" : "CALL_REJECTED", ...commandId }, "reject the call"))
      case "KeepOpen":
      case "ConnectMediaStream":
        return Effect.asVoid(command(config, providerCallId, "answer", { ...instructionParameters(instruction, {}), ...webhook, ...commandId }, "answer the call"))
    }
  }

  const keys = new Map<string, ReturnType<typeof Signature.publicKey>>()
  const publicKey = (text: string | undefined) => {
    if (text === undefined) return undefined
    if (!keys.has(text)) keys.set(text, Signature.publicKey(text))
    return keys.get(text)
  }

  return {
    name: "telnyx",
    displayName: "Telnyx",
    configSchema: TelnyxConfig,
    fields,
    accountId,
    calls: { place, hangUp, get },
    webhooks: {
      verify: ({ config, request }) =>
        Effect.map(Clock.currentTimeMillis, (now) => Signature.verify(publicKey(config.webhook_public_key), request.headers, request.rawBody, now)),
      parseStatus,
      parseInbound,
      // Telnyx ignores what a webhook is answered with, as long as it is a 2xx; `instructCall` acts.
      answer: () => ({ status: 200, contentType: "application/json", body: "{}" }),
      instructCall
    },
    media: Media.media,
    inbound: { configure: Numbers.configure(rest) }
  }
}

/** The adapter the server registers: Telnyx's API at `AGENTLINE_TELNYX_API_URL`. */
export const provider: TelnyxProvider = make()

/** A config decoded from a configuration body (tests, examples). */
export const decodeConfig = Schema.decodeUnknownSync(TelnyxConfig)
