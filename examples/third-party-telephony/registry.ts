/**
 * Registering a third-party adapter: the `TelephonyRegistry` is composed once, at the edge of the
 * application, from the first-party providers, the simulator and any adapters of your own. Every
 * provider in it is listed by the metadata endpoint, accepted as a configuration `provider`, and
 * dialed through by the dispatcher — no other code changes.
 */
import type { TelephonyRegistry } from "@agentline/core/telephony/TelephonyRegistry"
import { Providers } from "@agentline/http"
import { FetchHttpClient } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as Acme from "./src/Acme.js"

/**
 * The registry with Acme next to the built-in providers (as the server builds it: `Providers.registryLayer`).
 * The simulator plays its calls in the scope of this layer (they stop when the application stops), and
 * Acme gets its HTTP client here.
 */
export const TelephonyLive: Layer.Layer<TelephonyRegistry> = Layer.unwrapEffect(
  Effect.map(Acme.make(), (acme) => Providers.registryLayer([acme]))
).pipe(Layer.provide(FetchHttpClient.layer))

/**
 * The same registry with Acme replacing the built-in `twilio`: configurations
 * named `twilio` then use Acme's schema and place their calls through it. An application passes the
 * same list as `telephonyProviders` to `Embed.makeHandlers` or the server settings.
 */
export const TelephonyLiveAcmeAsTwilio: Layer.Layer<TelephonyRegistry> = Layer.unwrapEffect(
  Effect.map(Acme.make({ name: "twilio", displayName: "Twilio (through Acme)" }), (acme) => Providers.registryLayer([acme]))
).pipe(Layer.provide(FetchHttpClient.layer))
