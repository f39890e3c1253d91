/**
 * Registering a third-party adapter: the `TelephonyRegistry` is composed once, at the edge of the
 * application, from the first-party providers, the simulator and any adapters of your own. Every
 * provider in it is listed by the metadata endpoint, accepted as a configuration `provider`, and
 * dialed through by the dispatcher — no other code changes.
 */
import { firstPartyProviders } from "@agentline/core/telephony/ProviderConfigs"
import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyProvider"
import { Simulator } from "@agentline/telephony-simulator"
import { FetchHttpClient } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as Acme from "./AcmeTelephony.js"

/**
 * The registry with Acme next to the built-in providers. The simulator plays its calls in the scope
 * of this layer (they stop when the application stops), and Acme gets its HTTP client here.
 */
export const TelephonyLive: Layer.Layer<TelephonyRegistry> = Layer.unwrapScoped(
  Effect.gen(function*() {
    const simulator = yield* Simulator.make
    const acme = yield* Acme.make
    return TelephonyRegistry.layer([...firstPartyProviders, simulator, acme])
  })
).pipe(Layer.provide(FetchHttpClient.layer))
