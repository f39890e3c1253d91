/**
 * An example third-party telephony adapter for "Acme Voice", a made-up carrier with a small JSON API,
 * written the way Agentline's own adapters are: a package that depends on `@agentline/telephony-kit`
 * only, one file per part of the port, and `make` taking its `HttpClient` from the context.
 *
 * | part | file |
 * |---|---|
 * | configuration: account, API key, webhook secret | `Config.ts` |
 * | calls: place with the call flow inline, hang up, look up | `Calls.ts` over `Rest.ts` |
 * | webhooks: signed status callbacks and incoming calls, call-flow answers | `Callbacks.ts`, `Answer.ts` |
 * | media: JSON frames with base64 audio | `Media.ts` |
 * | inbound: a number's voice URL | `Numbers.ts` |
 *
 * Its fake (`testing/FakeAcme.ts`, built from the kit's fake-carrier blocks) and its contract wiring
 * (`testing/Carrier.ts`) let it run the kit's `runContract` from its own tests. See
 * docs/telephony-adapters.md.
 */
import type { ProviderCalls, ProviderInbound, ProviderWebhooks, TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import type { HttpClient } from "@effect/platform"
import { Effect } from "effect"
import * as Callbacks from "./Callbacks.js"
import * as Calls from "./Calls.js"
import { AcmeConfig, accountId, fields } from "./Config.js"
import * as Media from "./Media.js"
import * as Numbers from "./Numbers.js"
import * as Rest from "./Rest.js"

export * from "./Config.js"
export * as Answer from "./Answer.js"
export * as Callbacks from "./Callbacks.js"
export * as Media from "./Media.js"

/** Acme implements calls, webhooks, media and inbound setup; it keeps no connection per configuration. */
export type AcmeProvider = TelephonyProvider<AcmeConfig> & {
  readonly calls: ProviderCalls<AcmeConfig>
  readonly webhooks: ProviderWebhooks<AcmeConfig>
  readonly inbound: ProviderInbound<AcmeConfig>
}

export interface AcmeOptions {
  /** Acme's API (default `ACME_API_URL`, else Acme's public endpoint): a fake's in tests. */
  readonly apiUrl?: string | undefined
  /**
   * The registry name (default `acme`). An application can register this adapter under a built-in
   * provider's name, e.g. `twilio`, to replace it: configurations of that name then use Acme's schema.
   */
  readonly name?: string
  readonly displayName?: string
}

/**
 * The adapter. It needs an `HttpClient` once, when it is made; its methods then need nothing, as the
 * port requires (`FetchHttpClient.layer` in production, a test client or a local fake in tests).
 */
export const make = (options: AcmeOptions = {}): Effect.Effect<AcmeProvider, never, HttpClient.HttpClient> =>
  Effect.map(Rest.make(options), (rest) => ({
    name: options.name ?? "acme",
    displayName: options.displayName ?? "Acme Voice (example)",
    configSchema: AcmeConfig,
    fields,
    accountId,
    calls: Calls.make(rest),
    webhooks: Callbacks.webhooks,
    media: Media.media,
    inbound: Numbers.make(rest)
  }))
