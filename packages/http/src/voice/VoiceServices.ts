/**
 * The speech and language services of the server, chosen from the environment (see `VoiceChoice`):
 * `SpeechToText` and `TextToSpeech` always exist (the offline default when nothing is chosen) and the
 * language model is optional: without `AGENTLINE_LLM` the runtime says so in the run.
 */
import { SpeechToText, TextToSpeech } from "@agentline/core/voice/Speech"
import { energy, VoiceActivity } from "@agentline/core/audio/VoiceActivity"
import * as Cartesia from "@agentline/voice-cartesia/CartesiaTextToSpeech"
import * as Deepgram from "@agentline/voice-deepgram/DeepgramSpeechToText"
import * as ElevenLabs from "@agentline/voice-elevenlabs/ElevenLabsTextToSpeech"
import * as LocalSpeechToText from "@agentline/voice-local/LocalSpeechToText"
import * as LocalTextToSpeech from "@agentline/voice-local/LocalTextToSpeech"
import { defaultPrices, mergePrices, PriceTable, Prices } from "@agentline/voice/session/Costs"
import { AgentLanguageModel, SpeechServiceNames } from "@agentline/voice/session/LanguageModelTools"
import { type ModelOverrides, type OverriddenServices, VoiceServiceOverrides } from "@agentline/voice/session/ServiceOverrides"
import { resolveVendorKey } from "@agentline/core/credentials/Credentials"
import { CredentialsRepo } from "@agentline/core/credentials/CredentialsRepo"
import { SecretBox } from "@agentline/core/crypto/SecretBox"
import * as NodeCrypto from "node:crypto"
import { FetchHttpClient } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Config, ConfigError, Context, Effect, Either, Layer, Option, ParseResult, Redacted, Schema } from "effect"
import * as NodeFs from "node:fs"
import { parseChoice, type Service, type VoiceChoice } from "./VoiceChoice.js"

const choice = (service: Service, variable: string, fallback: string | undefined) =>
  Effect.gen(function*() {
    const raw = yield* Config.option(Config.string(variable))
    const value = Option.getOrElse(raw, () => fallback)
    if (value === undefined || value.trim() === "") return Option.none<VoiceChoice>()
    const parsed = parseChoice(service, value)
    if (Either.isLeft(parsed)) return yield* Effect.fail(ConfigError.InvalidData([variable], parsed.left.message))
    return Option.some(parsed.right)
  })

/**
 * The OpenAI adapters are loaded when a service needs them: `@effect/ai-openai` alone is ~75 MB of
 * resident memory, which a server on the offline default never uses.
 */
const openAi = (apiKey?: Redacted.Redacted) => Effect.promise(() =>
  Promise.all([import("@agentline/voice-openai/ChatLanguageModel"), import("@agentline/voice-openai/OpenAiSpeech")])
).pipe(Effect.map(([ChatLanguageModel, OpenAiSpeech]) => ({
  ChatLanguageModel,
  OpenAiSpeech,
  client: (apiKey === undefined ? ChatLanguageModel.clientLayerConfig : ChatLanguageModel.clientLayerConfigWithKey(apiKey)).pipe(
    Layer.provide(FetchHttpClient.layer)
  )
})))

/** A vendor key other than the environment's (an organization's stored credential). */
type KeyOverride = Redacted.Redacted | undefined

export const speechToTextLayer = (chosen: VoiceChoice, apiKey?: KeyOverride): Layer.Layer<SpeechToText, ConfigError.ConfigError> => {
  switch (chosen.provider) {
    case "deepgram":
      return Deepgram.layerConfig(chosen.name!, apiKey !== undefined ? { apiKey } : {})
    case "openai":
      return Layer.unwrapEffect(Effect.map(openAi(apiKey), (o) => o.OpenAiSpeech.transcriptionLayer({ model: chosen.name! }).pipe(Layer.provide(o.client))))
    default:
      return LocalSpeechToText.portLayer().pipe(Layer.provide(NodeContext.layer))
  }
}

export const textToSpeechLayer = (chosen: VoiceChoice, apiKey?: KeyOverride): Layer.Layer<TextToSpeech, ConfigError.ConfigError> => {
  switch (chosen.provider) {
    case "elevenlabs":
      return ElevenLabs.layerConfig(chosen.name!, undefined, apiKey !== undefined ? { apiKey } : {})
    case "cartesia":
      return Cartesia.layerConfig(chosen.name!, undefined, apiKey !== undefined ? { apiKey } : {})
    case "openai":
      return Layer.unwrapEffect(Effect.map(openAi(apiKey), (o) => o.OpenAiSpeech.speechLayer({ voice: chosen.name! }).pipe(Layer.provide(o.client))))
    default:
      return LocalTextToSpeech.portLayer().pipe(Layer.provide(NodeContext.layer))
  }
}

export const languageModelLayer = (chosen: Option.Option<VoiceChoice>, apiKey?: KeyOverride) =>
  Option.match(chosen, {
    onNone: () => Layer.succeed(AgentLanguageModel, Option.none()),
    onSome: (llm) =>
      Layer.unwrapEffect(Effect.map(openAi(apiKey), (o) =>
        Layer.effect(
          AgentLanguageModel,
          Effect.map(o.ChatLanguageModel.make({ model: llm.name! }), (model) => Option.some({ name: `${llm.provider}:${llm.name}`, model }))
        ).pipe(Layer.provide(o.client))))
  })

/** A choice as the key of `usage_info` and of the price table: `local`, `deepgram:nova-3`. */
const keyOf = (chosen: VoiceChoice) => (chosen.name === undefined ? chosen.provider : `${chosen.provider}:${chosen.name}`)

/**
 * The price table: the defaults, with the operator's `AGENTLINE_PRICES` file (JSON, `PriceTable`'s
 * shape) merged over them. A missing or malformed file fails the start with the variable named.
 */
export const pricesConfig = Effect.gen(function*() {
  const path = yield* Config.option(Config.string("AGENTLINE_PRICES"))
  if (Option.isNone(path) || path.value.trim() === "") return defaultPrices
  const text = yield* Effect.try({
    try: () => NodeFs.readFileSync(path.value, "utf8"),
    catch: (e) => ConfigError.InvalidData(["AGENTLINE_PRICES"], `cannot read ${path.value}: ${(e as Error).message}`)
  })
  const decoded = Schema.decodeUnknownEither(Schema.parseJson(PriceTable), { errors: "all" })(text)
  if (Either.isLeft(decoded)) {
    return yield* Effect.fail(ConfigError.InvalidData(["AGENTLINE_PRICES"], `${path.value} is not a price table: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`))
  }
  return mergePrices(defaultPrices, decoded.right)
})

/** All three from `AGENTLINE_LLM`, `AGENTLINE_STT`, `AGENTLINE_TTS` (speech defaults to `local`), with their names and prices. */
export const layerConfig: Layer.Layer<
  SpeechToText | TextToSpeech | AgentLanguageModel | SpeechServiceNames | Prices,
  ConfigError.ConfigError
> = Layer.unwrapEffect(Effect.gen(function*() {
  const llm = yield* choice("llm", "AGENTLINE_LLM", undefined)
  const stt = Option.getOrElse(yield* choice("stt", "AGENTLINE_STT", "local"), (): VoiceChoice => ({ provider: "local" }))
  const tts = Option.getOrElse(yield* choice("tts", "AGENTLINE_TTS", "local"), (): VoiceChoice => ({ provider: "local" }))
  const prices = yield* pricesConfig
  return Layer.mergeAll(
    speechToTextLayer(stt),
    textToSpeechLayer(tts),
    languageModelLayer(llm),
    Layer.succeed(SpeechServiceNames, { stt: keyOf(stt), tts: keyOf(tts) }),
    Layer.succeed(Prices, prices)
  )
}))

/**
 * The voice activity detector from `AGENTLINE_VAD`: `silero` (the Silero VAD network, loaded once at
 * start) or `energy` (the level against the line's noise floor: no model, no native code). Unset: Silero
 * when `@agentline/voice-silero` is installed — it is an optional dependency, because onnxruntime-node's
 * install step can fail where its optional CUDA download is unreachable — and otherwise the energy
 * detector, with a warning. onnxruntime-node is loaded only when Silero is used.
 */
export const voiceActivityLayerConfig: Layer.Layer<VoiceActivity, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.gen(function*() {
    const raw = yield* Config.option(Config.string("AGENTLINE_VAD"))
    const chosen = Option.map(raw, (value) => value.trim().toLowerCase())
    if (Option.isSome(chosen) && chosen.value === "energy") return Layer.succeed(VoiceActivity, energy())
    if (Option.isSome(chosen) && chosen.value !== "silero" && chosen.value !== "") {
      return yield* Effect.fail(ConfigError.InvalidData(["AGENTLINE_VAD"], `must be "silero" or "energy", not "${chosen.value}"`))
    }
    const explicit = Option.isSome(chosen) && chosen.value === "silero"
    const Silero = yield* Effect.either(Effect.tryPromise(() => import("@agentline/voice-silero/SileroVoiceActivity")))
    if (Either.isLeft(Silero)) {
      const why = `@agentline/voice-silero cannot be loaded (${String(Silero.left.error)})`
      if (explicit) return yield* Effect.fail(ConfigError.InvalidData(["AGENTLINE_VAD"], `${why}; install it, or set AGENTLINE_VAD=energy`))
      yield* Effect.logWarning(`${why}: the voice runtime uses the energy detector (AGENTLINE_VAD=energy to say so and silence this)`)
      return Layer.succeed(VoiceActivity, energy())
    }
    return Silero.right.layer().pipe(
      Layer.catchAll((error) => Layer.fail(ConfigError.InvalidData(["AGENTLINE_VAD"], `${error.message} (set AGENTLINE_VAD=energy to run without it)`)))
    )
  })
)

/** A configuration error in words: each missing or invalid variable with what is wrong. */
const describeConfigError = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "And":
    case "Or":
      return `${describeConfigError(error.left)}; ${describeConfigError(error.right)}`
    default:
      return `${error.path.join(".")}: ${error.message}`
  }
}

/**
 * Per-agent `model_overrides`, built from the same adapters and environment (API keys, base URLs) as
 * the defaults, with an organization's stored key for a vendor where `credentials` names one. Each
 * distinct choice (and key) is built once, in this layer's scope, and reused by later calls; a stored
 * key is read (and decrypted) at each call, so a changed or deleted credential counts from the next call.
 */
export const overridesLayer: Layer.Layer<VoiceServiceOverrides, never, CredentialsRepo | SecretBox> = Layer.scoped(
  VoiceServiceOverrides,
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const credentials = yield* CredentialsRepo
    const box = yield* SecretBox
    // The defaults, for the vendors whose key an organization replaces without choosing another model.
    const defaults = yield* Effect.orElseSucceed(
      Effect.all({
        llm: choice("llm", "AGENTLINE_LLM", undefined),
        stt: choice("stt", "AGENTLINE_STT", "local"),
        tts: choice("tts", "AGENTLINE_TTS", "local")
      }),
      () => ({ llm: Option.none<VoiceChoice>(), stt: Option.none<VoiceChoice>(), tts: Option.none<VoiceChoice>() })
    )
    const lock = yield* Effect.makeSemaphore(1)
    const built = new Map<string, Context.Context<never>>()
    const build = <I, S>(key: string, layer: Layer.Layer<I, ConfigError.ConfigError>, tag: Context.Tag<I, S>) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const cached = built.get(key)
        if (cached !== undefined) return Context.get(cached as Context.Context<I>, tag)
        const context = yield* Layer.buildWithScope(layer, scope).pipe(
          // The key's last part tells keys apart; the message names the choice only.
          Effect.mapError((e) => `${key.slice(0, key.lastIndexOf(":"))} cannot be used: ${describeConfigError(e)}`)
        )
        built.set(key, context as Context.Context<never>)
        return Context.get(context, tag)
      }))
    const parse = (service: Service, value: string) =>
      Either.match(parseChoice(service, value), {
        onLeft: (e) => Effect.fail(`${service}: ${e.message}`),
        onRight: (chosen) => Effect.succeed(chosen)
      })
    /**
     * The service to build for `service`: the override, or the default when only its vendor's key is
     * replaced; with the stored key when `credentials` names one for its vendor.
     */
    const planFor = (
      service: Service,
      overrides: ModelOverrides,
      organizationId: number
    ): Effect.Effect<Option.Option<{ readonly chosen: VoiceChoice; readonly apiKey: KeyOverride; readonly keyId: string }>, string> =>
      Effect.gen(function*() {
        const named = overrides[service]
        const chosen = named !== undefined ? Option.some(yield* parse(service, named)) : defaults[service]
        if (Option.isNone(chosen)) return Option.none()
        const uuid = overrides.credentials?.[chosen.value.provider]
        if (named === undefined && uuid === undefined) return Option.none()
        if (uuid === undefined) return Option.some({ chosen: chosen.value, apiKey: undefined, keyId: "env" })
        const secret = yield* resolveVendorKey(credentials, box, organizationId, uuid)
        if (Either.isLeft(secret)) return yield* Effect.fail(`${service}: ${secret.left}`)
        // Built once per distinct key: a hash names it in the cache, the key itself is never kept there.
        const keyId = NodeCrypto.createHash("sha256").update(secret.right).digest("hex").slice(0, 16)
        return Option.some({ chosen: chosen.value, apiKey: Redacted.make(secret.right), keyId })
      })
    const resolve = (overrides: ModelOverrides, organizationId: number) =>
      Effect.gen(function*() {
        const result: { -readonly [K in keyof OverriddenServices]: OverriddenServices[K] } = {}
        const llm = yield* planFor("llm", overrides, organizationId)
        if (Option.isSome(llm)) {
          const { apiKey, chosen, keyId } = llm.value
          result.llm = yield* build(`llm:${keyOf(chosen)}:${keyId}`, languageModelLayer(Option.some(chosen), apiKey), AgentLanguageModel)
        }
        const stt = yield* planFor("stt", overrides, organizationId)
        if (Option.isSome(stt)) {
          const { apiKey, chosen, keyId } = stt.value
          result.stt = { service: yield* build(`stt:${keyOf(chosen)}:${keyId}`, speechToTextLayer(chosen, apiKey), SpeechToText), name: keyOf(chosen) }
        }
        const tts = yield* planFor("tts", overrides, organizationId)
        if (Option.isSome(tts)) {
          const { apiKey, chosen, keyId } = tts.value
          result.tts = { service: yield* build(`tts:${keyOf(chosen)}:${keyId}`, textToSpeechLayer(chosen, apiKey), TextToSpeech), name: keyOf(chosen) }
        }
        return result as OverriddenServices
      })
    return VoiceServiceOverrides.of({ resolve })
  })
)
