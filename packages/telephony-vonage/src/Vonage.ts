/**
 * Vonage (Voice API): the adapter, made of its parts —
 *
 * | part | file |
 * |---|---|
 * | configuration: API key and secret, application id and private key, signature secret, AMD | `Config.ts` |
 * | calls: `POST /v1/calls` with an application JWT, hang-up and lookups | `Calls.ts` over `Rest.ts`, `Jwt.ts` |
 * | webhooks: signed callbacks (HS256 JWT with `payload_hash`), JSON events, NCCO answers | `Callbacks.ts`, `Jwt.ts`, `Answer.ts` |
 * | media: 16-bit linear PCM at 16 kHz in binary 20 ms frames, JSON control | `Media.ts` |
 * | inbound: the application's answer URL, the number linked to it | `Numbers.ts` |
 * | transfers: the call moved to an NCCO that connects the target, results from its `eventUrl` | `Transfer.ts` |
 */
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import type { HttpClient } from "@effect/platform"
import { Effect } from "effect"
import * as Callbacks from "./Callbacks.js"
import * as Calls from "./Calls.js"
import { accountId, fields, VonageConfig } from "./Config.js"
import * as Media from "./Media.js"
import * as Numbers from "./Numbers.js"
import * as Rest from "./Rest.js"
import * as Transfer from "./Transfer.js"

export * from "./Config.js"
export * as Answer from "./Answer.js"
export * as Callbacks from "./Callbacks.js"
export * as Calls from "./Calls.js"
export * as Jwt from "./Jwt.js"
export * as Media from "./Media.js"
export * as Numbers from "./Numbers.js"
export * as Transfer from "./Transfer.js"

export type VonageProvider = TelephonyProvider<VonageConfig> & {
  readonly calls: NonNullable<TelephonyProvider<VonageConfig>["calls"]>
  readonly webhooks: NonNullable<TelephonyProvider<VonageConfig>["webhooks"]>
}

/**
 * The adapter over the context's `HttpClient`; `apiUrl` overrides `AGENTLINE_VONAGE_API_URL`, `restUrl`
 * `AGENTLINE_VONAGE_REST_URL` (tests, private deployments).
 */
export const make = (
  options: { readonly apiUrl?: string | undefined; readonly restUrl?: string | undefined } = {}
): Effect.Effect<VonageProvider, never, HttpClient.HttpClient> =>
  Effect.map(Rest.make(options), (rest) => ({
    name: "vonage",
    displayName: "Vonage",
    configSchema: VonageConfig,
    fields,
    accountId,
    calls: { ...Calls.make(rest), transfer: Transfer.transfer(rest) },
    webhooks: { ...Callbacks.webhooks, parseTransferResult: Transfer.parseTransferResult },
    media: Media.media,
    inbound: Numbers.make(rest),
    transfers: { cold: true, warm: false }
  }))
