/**
 * The providers this server knows: the eight first-party calling adapters (Twilio, Telnyx, Plivo, Vobiz,
 * Cloudonix, Vonage, Exotel, Asterisk ARI), the simulator, and the
 * embedding application's own adapters, which replace a built-in provider of the same name (see
 * `TelephonyRegistry.make`).
 */
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyRegistry"
import { Ari } from "@agentline/telephony-ari"
import { Cloudonix } from "@agentline/telephony-cloudonix"
import { Exotel } from "@agentline/telephony-exotel"
import { Plivo } from "@agentline/telephony-plivo"
import { Simulator } from "@agentline/telephony-simulator"
import { Telnyx } from "@agentline/telephony-telnyx"
import { Twilio } from "@agentline/telephony-twilio"
import { Vobiz } from "@agentline/telephony-vobiz"
import { Vonage } from "@agentline/telephony-vonage"
import { CalleeVoice } from "@agentline/telephony-simulator/Callee"
import { TextToSpeech } from "@agentline/core/voice/Speech"
import * as LocalTextToSpeech from "@agentline/voice-local/LocalTextToSpeech"
import { FetchHttpClient, type HttpClient } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"

/**
 * The eight first-party providers, in name order, each made the adapters' one way (`make()`: its API
 * at the provider's `AGENTLINE_<PROVIDER>_API_URL`, requests through the context's `HttpClient`).
 */
export const firstPartyProviders: Effect.Effect<ReadonlyArray<TelephonyProvider>, never, HttpClient.HttpClient> = Effect.all([
  Ari.make(),
  Cloudonix.make(),
  Exotel.make(),
  Plivo.make(),
  Telnyx.make(),
  Twilio.make(),
  Vobiz.make(),
  Vonage.make()
])

/**
 * The voice of the simulator's talking callee: the offline text-to-speech (espeak-ng), in a voice other
 * than the agent's default so the two sides of a recording are told apart by ear.
 */
export const calleeVoiceLayer: Layer.Layer<CalleeVoice> = Layer.effect(CalleeVoice, TextToSpeech).pipe(
  Layer.provide(LocalTextToSpeech.portLayer({ voice: "en-us+f3", wordsPerMinute: 160 })),
  Layer.provide(NodeContext.layer)
)

/**
 * The registry: first-party providers (their requests through `fetch`), the simulator (its calls play
 * in this layer's scope and stop with the application; its callee speaks with `calleeVoice`), then
 * `extra`, whose providers replace built-in ones of the same name.
 */
export const registryLayer = (
  extra: ReadonlyArray<TelephonyProvider> = [],
  calleeVoice: Layer.Layer<CalleeVoice> = calleeVoiceLayer
): Layer.Layer<TelephonyRegistry> =>
  Layer.scoped(
    TelephonyRegistry,
    Effect.gen(function*() {
      const firstParty = yield* firstPartyProviders
      const simulator = yield* Simulator.make()
      return TelephonyRegistry.make([...firstParty, simulator, ...extra])
    })
  ).pipe(Layer.provide(calleeVoice), Layer.provide(FetchHttpClient.layer))
