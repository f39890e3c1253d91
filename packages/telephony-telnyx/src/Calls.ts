/**
 * Telnyx's `calls`: `POST /v2/calls` through the configuration's Call Control Application, status
 * webhooks to the attempt's callback URL, the media stream inline (`stream_url`, both tracks,
 * bidirectional RTP in PCMU 8 kHz) and answering machine detection when `amd_enabled`;
 * `actions/hangup`; `GET /v2/calls/{id}` (alive or not: how a call ended is only in its webhooks, which
 * `CallMemory` keeps).
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import {
  type CallInstruction,
  type CallStatus,
  type PlaceCall,
  type ProviderCalls,
  TelephonyError
} from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either } from "effect"
import type * as CallMemory from "./CallMemory.js"
import * as ClientState from "./ClientState.js"
import type { TelnyxConfig } from "./Config.js"
import * as Rest from "./Rest.js"

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
export const instructionParameters = (instruction: CallInstruction, fallback: Readonly<Record<string, string>>) =>
  instruction._tag === "ConnectMediaStream"
    ? { ...streamParameters(instruction.url), client_state: ClientState.encode(instruction.parameters) }
    : { client_state: ClientState.encode(fallback) }

const refused = (message: string) => new TelephonyError({ provider: "telnyx", message, retryable: false })

/** The calls part, and the commands on a call that answering inbound calls needs too. */
export interface Calls extends ProviderCalls<TelnyxConfig> {
  /** A command on a call: true when sent, false when the call is over already (what hanging up or rejecting wanted). */
  readonly command: (config: TelnyxConfig, callId: string, action: string, body: Record<string, unknown>, what: string) => Effect.Effect<boolean, TelephonyError>
}

export const make = (rest: Rest.Rest, memory: CallMemory.CallMemory): Calls => {
  const command: Calls["command"] = (config, callId, action, body, what) =>
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

  return { place, hangUp, get, command }
}
