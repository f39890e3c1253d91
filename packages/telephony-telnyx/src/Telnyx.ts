/**
 * Telnyx (Call Control / Voice API v2): the adapter, made of its parts —
 *
 * | part | file |
 * |---|---|
 * | configuration: API key, Call Control Application, webhook public key, AMD | `Config.ts` |
 * | calls: `POST /v2/calls` with the stream inline, `actions/hangup`, `GET /v2/calls/{id}` | `Calls.ts` over `Rest.ts`, `CallMemory.ts` |
 * | webhooks: Ed25519 signatures, JSON events, inbound calls answered by command (`instructCall`) | `Callbacks.ts`, `Signature.ts`, `ClientState.ts` |
 * | media: Telnyx's media-streaming JSON | `Media.ts` |
 * | inbound: the number's Call Control Application and its webhook | `Numbers.ts` |
 * | transfers: `actions/transfer`, results from the new leg's webhooks at the result URL | `Transfer.ts` |
 *
 * The inbound routing key's account id is the connection id (Telnyx webhooks name the application).
 */
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import type { HttpClient } from "@effect/platform"
import { Effect, Schema } from "effect"
import * as Callbacks from "./Callbacks.js"
import * as CallMemory from "./CallMemory.js"
import * as Calls from "./Calls.js"
import { accountId, fields, TelnyxConfig } from "./Config.js"
import * as Media from "./Media.js"
import * as Numbers from "./Numbers.js"
import * as Rest from "./Rest.js"
import * as Transfer from "./Transfer.js"

export * from "./Config.js"
export * as Callbacks from "./Callbacks.js"
export * as Calls from "./Calls.js"
export * as ClientState from "./ClientState.js"
export * as Media from "./Media.js"
export * as Rest from "./Rest.js"
export * as Signature from "./Signature.js"
export * as Transfer from "./Transfer.js"

export type TelnyxProvider = TelephonyProvider<TelnyxConfig> & {
  readonly calls: NonNullable<TelephonyProvider<TelnyxConfig>["calls"]>
  readonly webhooks: NonNullable<TelephonyProvider<TelnyxConfig>["webhooks"]>
  readonly media: NonNullable<TelephonyProvider<TelnyxConfig>["media"]>
  readonly inbound: NonNullable<TelephonyProvider<TelnyxConfig>["inbound"]>
}

/** The adapter over the context's `HttpClient`; `apiUrl` overrides `AGENTLINE_TELNYX_API_URL` (tests, other endpoints). */
export const make = (options: { readonly apiUrl?: string | undefined } = {}): Effect.Effect<TelnyxProvider, never, HttpClient.HttpClient> =>
  Effect.map(Rest.make(options), (rest) => {
    const memory = CallMemory.make()
    const calls = Calls.make(rest, memory)
    return {
      name: "telnyx",
      displayName: "Telnyx",
      configSchema: TelnyxConfig,
      fields,
      accountId,
      calls: { place: calls.place, hangUp: calls.hangUp, get: calls.get, transfer: Transfer.transfer(rest) },
      webhooks: { ...Callbacks.makeWebhooks(calls, memory), parseTransferResult: Transfer.parseTransferResult(calls.hangUp) },
      media: Media.media,
      inbound: { configure: Numbers.configure(rest) },
      transfers: { cold: true, warm: false }
    }
  })

/** A config decoded from a configuration body (tests, examples). */
export const decodeConfig = Schema.decodeUnknownSync(TelnyxConfig)
