/**
 * A calling adapter for a Plivo-compatible carrier, from its dialect: calls (`Calls.ts`), webhooks
 * (signatures `Signature.ts`, callbacks `Callbacks.ts`, answer XML `Answer.ts`), the stream codec
 * (`Media.ts`), number setup (`Numbers.ts`) and cold transfers (`Transfer.ts`).
 *
 * The API base URL comes from the dialect's environment variable (`AGENTLINE_PLIVO_API_URL`, ...),
 * default the public endpoint, or from `options.apiUrl` (tests point it at a fake) — never from an
 * organization's configuration, which would let a tenant point the server at internal addresses.
 */
import type {
  ProviderCalls,
  ProviderSync,
  ProviderInbound,
  ProviderWebhooks,
  TelephonyProvider,
  WebhookRequest
} from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import type { ProviderMedia } from "@agentline/telephony-kit/Media"
import type { HttpClient } from "@effect/platform"
import { Clock, Effect } from "effect"
import { answer } from "./Answer.js"
import { inboundOf, paramsOf, toEvents } from "./Callbacks.js"
import * as Calls from "./Calls.js"
import { accountId, PlivoCompatibleConfig, type PlivoDialect } from "./Dialect.js"
import * as Numbers from "./Numbers.js"
import * as Rest from "./Rest.js"
import * as Signature from "./Signature.js"
import * as Transfer from "./Transfer.js"
import { media } from "./Media.js"

export type PlivoCompatibleProvider = TelephonyProvider<PlivoCompatibleConfig> & {
  readonly calls: ProviderCalls<PlivoCompatibleConfig>
  readonly webhooks: ProviderWebhooks<PlivoCompatibleConfig>
  readonly media: ProviderMedia
  readonly inbound: ProviderInbound<PlivoCompatibleConfig>
}

export interface Options {
  /** The API base URL (`https://api.plivo.com`); default: the dialect's environment variable, else the public endpoint. */
  readonly apiUrl?: string
}

/** Header lookup that does not depend on how the server spelled the header name. */
export const header = (request: WebhookRequest) => (wanted: string): string | undefined => {
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === wanted) return value
  return undefined
}

export const webhooks = (dialect: PlivoDialect): ProviderWebhooks<PlivoCompatibleConfig> => ({
  verify: ({ config, request }) =>
    Effect.sync(() =>
      Signature.verify(dialect.signature, config.auth_token, {
        method: request.method,
        url: request.url,
        params: request.method.toUpperCase() === "GET" ? [] : paramsOf(request.rawBody),
        header: header(request)
      })
    ),
  parseStatus: ({ request }) => Effect.map(Clock.currentTimeMillis, (now) => toEvents(paramsOf(request.rawBody), now)),
  parseInbound: ({ request }) => {
    const parsed = inboundOf(paramsOf(request.rawBody), request.url)
    return parsed._tag === "Inbound"
      ? Effect.succeed({ accountId: parsed.accountId, to: parsed.to, from: parsed.from, providerCallId: parsed.providerCallId })
      : Effect.fail(new TelephonyError({ provider: dialect.name, message: `not a ${dialect.displayName} incoming call: ${parsed.reason}`, retryable: false }))
  },
  answer: ({ instruction }) => answer(instruction),
  parseTransferResult: Transfer.parseTransferResult((message) =>
    new TelephonyError({ provider: dialect.name, message: `not a ${dialect.displayName} transfer result: ${message}`, retryable: false })
  ),
  transferAnswer: Transfer.transferAnswer
})

/** The adapter of `dialect`, over the context's `HttpClient` (taken now: its methods need nothing). */
export const make = (dialect: PlivoDialect, options: Options = {}): Effect.Effect<PlivoCompatibleProvider, never, HttpClient.HttpClient> =>
  Effect.map(Rest.make(dialect, options.apiUrl), (rest) => ({
    name: dialect.name,
    displayName: dialect.displayName,
    configSchema: PlivoCompatibleConfig,
    fields: dialect.fields,
    accountId,
    calls: { ...Calls.make(rest), transfer: Transfer.transfer(rest) },
    webhooks: webhooks(dialect),
    media: media(dialect),
    inbound: Numbers.make(rest),
    transfers: { cold: true, warm: false },
    verifyCredentials: (config) => verifyCredentials(rest, config)
  }))

/** One page of one application: the cheapest request that needs the account's credentials. */
const verifyCredentials = (rest: Rest.Rest, config: PlivoCompatibleConfig): Effect.Effect<ProviderSync> =>
  rest.send(config, { method: "GET", path: "Application/?limit=1&offset=0", what: "check the credentials" }).pipe(
    Effect.flatMap((response) =>
      response.status >= 200 && response.status < 300
        ? Effect.succeed<ProviderSync>({ ok: true, message: `${rest.dialect.displayName} accepts the credentials` })
        : rest.refused("check the credentials", response)
    ),
    Effect.catchAll((e) => Effect.succeed<ProviderSync>({ ok: false, message: e.message }))
  )
