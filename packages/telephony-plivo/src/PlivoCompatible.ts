/**
 * A calling adapter for a Plivo-compatible carrier, from its dialect: calls (`Calls.ts`), webhooks
 * (signatures `Signature.ts`, callbacks `Callbacks.ts`, answer XML `Answer.ts`), the stream codec
 * (`StreamCodec.ts`) and number setup (`InboundSetup.ts`).
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
} from "@agentline/core/telephony/TelephonyProvider"
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import type { ProviderMedia } from "@agentline/core/telephony/Media"
import { Clock, Effect } from "effect"
import { answer } from "./Answer.js"
import { inboundOf, paramsOf, toEvents } from "./Callbacks.js"
import * as Calls from "./Calls.js"
import { accountId, PlivoCompatibleConfig, type PlivoDialect } from "./Dialect.js"
import * as InboundSetup from "./InboundSetup.js"
import * as Rest from "./Rest.js"
import * as Signature from "./Signature.js"
import { media } from "./StreamCodec.js"

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
  answer: ({ instruction }) => answer(instruction)
})

/** The adapter of `dialect`; its methods need nothing (requests go out through `fetch`). */
export const make = (dialect: PlivoDialect, options: Options = {}): PlivoCompatibleProvider => {
  const rest = Rest.make(dialect, options.apiUrl)
  return {
    name: dialect.name,
    displayName: dialect.displayName,
    configSchema: PlivoCompatibleConfig,
    fields: dialect.fields,
    accountId,
    calls: Calls.make(rest),
    webhooks: webhooks(dialect),
    media: media(dialect),
    inbound: InboundSetup.make(rest),
    verifyCredentials: (config) => verifyCredentials(rest, config)
  }
}

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
