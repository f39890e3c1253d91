import { SpeechToText, TextToSpeech } from "@agentline/core/voice/Speech"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, ConfigProvider, Effect, Either, Layer, Option, Redacted, Stream } from "effect"
import { parseChoice, PROVIDERS } from "../../src/voice/VoiceChoice.js"
import { costOf, Prices } from "@agentline/voice/session/Costs"
import { AgentLanguageModel, SpeechServiceNames } from "@agentline/voice/session/LanguageModelTools"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { layerConfig, overridesLayer, voiceActivityLayerConfig } from "../../src/voice/VoiceServices.js"
import { VoiceActivity } from "@agentline/core/audio/VoiceActivity"
import { modelOverrides, VoiceServiceOverrides } from "@agentline/voice/session/ServiceOverrides"
import { CredentialsRepo } from "@agentline/core/credentials/CredentialsRepo"
import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import { SecretBox } from "@agentline/core/crypto/SecretBox"
import { Repositories, Testing } from "@agentline/sql"
import { chunk, reply, startFakeOpenAi } from "@agentline/voice-openai/testing/FakeOpenAi"
import { LanguageModel, Prompt } from "@effect/ai"

const withEnv = (env: Record<string, string>) =>
  Layer.provide(layerConfig, Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("VoiceChoice.parseChoice", () => {
  it("reads <provider>:<model or voice> and local", () => {
    expect(parseChoice("llm", "openai:gpt-4.1-mini")).toEqual(Either.right({ provider: "openai", name: "gpt-4.1-mini" }))
    expect(parseChoice("stt", "deepgram:nova-3")).toEqual(Either.right({ provider: "deepgram", name: "nova-3" }))
    expect(parseChoice("tts", " ElevenLabs:21m00Tcm4TlvDq8ikWAM ")).toEqual(
      Either.right({ provider: "elevenlabs", name: "21m00Tcm4TlvDq8ikWAM" })
    )
    expect(parseChoice("tts", "local")).toEqual(Either.right({ provider: "local" }))
    // A model name may itself hold colons (Ollama tags).
    expect(parseChoice("llm", "openai:llama3.2:3b")).toEqual(Either.right({ provider: "openai", name: "llama3.2:3b" }))
  })

  it("refuses, in words naming the variable, unknown providers, missing names and names after local", () => {
    const message = (result: Either.Either<unknown, { message: string }>) => Either.isLeft(result) ? result.left.message : ""
    expect(message(parseChoice("stt", "whisper:large"))).toBe(
      `AGENTLINE_STT=whisper:large: unknown provider "whisper" (one of: ${Object.keys(PROVIDERS.stt).join(", ")})`
    )
    expect(message(parseChoice("llm", "openai"))).toContain("AGENTLINE_LLM=openai: \"openai\" needs a model")
    expect(message(parseChoice("tts", "elevenlabs:"))).toContain("needs a model or voice")
    expect(message(parseChoice("tts", "local:espeak"))).toContain("takes nothing after it")
    expect(message(parseChoice("llm", "local"))).toContain("unknown provider \"local\"")
  })
})

describe("VoiceServices.voiceActivityLayerConfig (AGENTLINE_VAD)", () => {
  const vadWith = (env: Record<string, string>) =>
    Layer.provide(voiceActivityLayerConfig, Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
  const nameOf = (env: Record<string, string>) =>
    Effect.map(VoiceActivity, (vad) => vad.name).pipe(Effect.provide(vadWith(env)))

  it.effect("Silero by default, energy when asked, any case and spacing", () =>
    Effect.gen(function*() {
      expect(yield* nameOf({})).toBe("silero")
      expect(yield* nameOf({ AGENTLINE_VAD: "silero" })).toBe("silero")
      expect(yield* nameOf({ AGENTLINE_VAD: " Energy " })).toBe("energy")
    }))

  it.effect("anything else fails at start with the variable and the choices named", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(vadWith({ AGENTLINE_VAD: "webrtc" })).pipe(Effect.scoped))
      expect(String(error)).toContain("AGENTLINE_VAD")
      expect(String(error)).toContain(`must be "silero" or "energy", not "webrtc"`)
    }))
})

describe("VoiceServices.layerConfig", () => {
  it.effect("without settings: the offline speech services and no language model", () =>
    Effect.gen(function*() {
      const llm = yield* AgentLanguageModel
      expect(Option.isNone(llm)).toBe(true)
      const tts = yield* TextToSpeech
      const audio = yield* Stream.runCollect(tts.synthesize({ encoding: "mulaw", sampleRate: 8000 }, Stream.make("Hello.")))
      expect(Chunk.size(audio)).toBeGreaterThan(5)
      yield* SpeechToText
    }).pipe(Effect.provide(withEnv({}))))

  it.effect("OpenAI transcription as the recognizer when AGENTLINE_STT names it", () =>
    Effect.gen(function*() {
      yield* SpeechToText
      expect((yield* SpeechServiceNames).stt).toBe("openai:gpt-4o-mini-transcribe")
    }).pipe(Effect.provide(withEnv({ AGENTLINE_STT: "openai:gpt-4o-mini-transcribe", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }))))

  it.effect("an OpenAI-compatible language model when AGENTLINE_LLM names one", () =>
    Effect.gen(function*() {
      const llm = yield* AgentLanguageModel
      expect(Option.map(llm, (m) => m.name)).toEqual(Option.some("openai:gpt-4.1-mini"))
    }).pipe(Effect.provide(withEnv({ AGENTLINE_LLM: "openai:gpt-4.1-mini", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }))))

  it.effect("an unknown provider or a vendor without its key fails at start with the variable named", () =>
    Effect.gen(function*() {
      const unknown = yield* Effect.flip(Layer.build(withEnv({ AGENTLINE_TTS: "polly:joanna" })).pipe(Effect.scoped))
      expect(String(unknown)).toContain("AGENTLINE_TTS=polly:joanna: unknown provider")
      const noKey = yield* Effect.flip(Layer.build(withEnv({ AGENTLINE_STT: "deepgram:nova-3" })).pipe(Effect.scoped))
      expect(String(noKey)).toContain("DEEPGRAM_API_KEY")
      const withKey = yield* Layer.build(withEnv({ AGENTLINE_STT: "deepgram:nova-3", DEEPGRAM_API_KEY: "k", AGENTLINE_TTS: "cartesia:v1", CARTESIA_API_KEY: "c" })).pipe(
        Effect.scoped,
        Effect.either
      )
      expect(Either.isRight(withKey)).toBe(true)
    }))

  it.effect("names the chosen services for usage and prices; AGENTLINE_PRICES merges over the defaults, a bad file fails the start", () =>
    Effect.gen(function*() {
      const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-prices-"))
      const good = NodePath.join(dir, "prices.json")
      NodeFs.writeFileSync(good, JSON.stringify({ llm: { "openai:gpt-4.1-mini": { input_per_million: 0.2, output_per_million: 0.8 } } }))
      const [names, prices] = yield* Effect.all([SpeechServiceNames, Prices]).pipe(
        Effect.provide(withEnv({ AGENTLINE_STT: "deepgram:nova-3", DEEPGRAM_API_KEY: "k", AGENTLINE_PRICES: good }))
      )
      expect(names).toEqual({ stt: "deepgram:nova-3", tts: "local" })
      expect(prices.llm["openai:gpt-4.1-mini"]).toEqual({ input_per_million: 0.2, output_per_million: 0.8 })
      expect(prices.stt["deepgram:nova-3"]).toEqual({ per_minute: 0.0048 })
      const bad = NodePath.join(dir, "bad.json")
      NodeFs.writeFileSync(bad, JSON.stringify({ tts: { local: { per_million_characters: "free" } } }))
      const refused = yield* Effect.flip(Layer.build(withEnv({ AGENTLINE_PRICES: bad })).pipe(Effect.scoped))
      expect(String(refused)).toContain("AGENTLINE_PRICES")
      expect(String(refused)).toContain("per_million_characters")
      const missing = yield* Effect.flip(Layer.build(withEnv({ AGENTLINE_PRICES: NodePath.join(dir, "none.json") })).pipe(Effect.scoped))
      expect(String(missing)).toContain("cannot read")
    }))
})

describe("a local model: an OpenAI-compatible server (Ollama, llama.cpp's server, vLLM) through OPENAI_BASE_URL", () => {
  const prompt = Prompt.make([{ role: "system", content: "Greet the caller." }, { role: "user", content: "Hello?" }])

  it.scoped("its own model name goes as it is, with no key; its usage is recorded under it and unpriced ($0) unless AGENTLINE_PRICES names it", () =>
    Effect.gen(function*() {
      // A server that reports usage (OpenAI's stream_options.include_usage), then one that does not.
      const fake = yield* startFakeOpenAi([
        reply("Hi there, how can I help?"),
        { _tag: "Stream", chunks: [chunk({ role: "assistant", content: "" }), chunk({ content: "Goodbye." }, "stop")] }
      ])
      const env = { AGENTLINE_LLM: "openai:llama3.1:8b", OPENAI_BASE_URL: fake.url }
      const [llm, prices] = yield* Effect.all([AgentLanguageModel, Prices]).pipe(Effect.provide(withEnv(env)))
      const model = Option.getOrThrow(llm)
      expect(model.name).toBe("openai:llama3.1:8b")
      const ask = LanguageModel.generateText({ prompt }).pipe(Effect.provideService(LanguageModel.LanguageModel, model.model))
      const first = yield* ask
      expect(first.text).toBe("Hi there, how can I help?")
      expect(first.usage.inputTokens).toBe(100)
      const second = yield* ask
      expect(second.text).toBe("Goodbye.")
      expect(second.usage.inputTokens).toBeUndefined()
      expect(fake.received.map((r) => [r.path, r.body.model, r.authorization])).toEqual([
        ["/v1/chat/completions", "llama3.1:8b", undefined],
        ["/v1/chat/completions", "llama3.1:8b", undefined]
      ])

      // As the runtime keys the run's usage_info and prices it (tokens a server does not report count 0).
      const usage = {
        llm: { [model.name]: { inputTokens: first.usage.inputTokens ?? 0, outputTokens: first.usage.outputTokens ?? 0 } },
        stt: { local: { seconds: 12 } },
        tts: { local: { characters: 40 } }
      }
      expect(costOf(prices, usage)).toEqual({
        total_cost_usd: 0,
        llm_cost_usd: 0,
        stt_cost_usd: 0,
        tts_cost_usd: 0,
        unpriced: ["llm:openai:llama3.1:8b"]
      })
      const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-prices-"))
      const file = NodePath.join(dir, "prices.json")
      NodeFs.writeFileSync(file, JSON.stringify({ llm: { "openai:llama3.1:8b": { input_per_million: 0, output_per_million: 0 } } }))
      const priced = yield* Effect.provide(Prices, withEnv({ ...env, AGENTLINE_PRICES: file }))
      expect(costOf(priced, usage)).toEqual({ total_cost_usd: 0, llm_cost_usd: 0, stt_cost_usd: 0, tts_cost_usd: 0 })
    }))
})

describe("VoiceServices.overridesLayer (model_overrides)", () => {
  const overrides = Effect.flatMap(VoiceServiceOverrides, (o) => Effect.succeed(o))
  // Stored credentials live in a real (SQLite) database, sealed with a real SecretBox.
  const storage = Repositories.layer.pipe(Layer.provideMerge(Testing.layerDatabase("sqlite")), Layer.merge(SecretBox.layer(Redacted.make("test-secret"))))
  const env = (vars: Record<string, string>) =>
    Layer.provideMerge(overridesLayer, storage).pipe(
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(vars)))))
    )

  it.scoped("builds the chosen services once, with their names, and reuses them", () =>
    Effect.gen(function*() {
      const o = yield* overrides
      const first = yield* o.resolve({ llm: "openai:gpt-4.1", tts: "local", stt: "local" }, 1)
      expect(Option.map(first.llm!, (l) => l.name)).toEqual(Option.some("openai:gpt-4.1"))
      expect(first.tts?.name).toBe("local")
      expect(first.stt?.name).toBe("local")
      const again = yield* o.resolve({ llm: "openai:gpt-4.1" }, 1)
      expect(Option.getOrThrow(again.llm!).model).toBe(Option.getOrThrow(first.llm!).model)
      // What is not overridden is left to the defaults.
      expect(again.tts).toBeUndefined()
    }).pipe(Effect.provide(env({ OPENAI_API_KEY: "sk-test" }))))

  it.scoped("a choice that cannot be had fails with a message naming it (never the key)", () =>
    Effect.gen(function*() {
      const o = yield* overrides
      expect(yield* Effect.flip(o.resolve({ stt: "whisper:large" }, 1))).toContain("unknown provider \"whisper\"")
      const missingKey = yield* Effect.flip(o.resolve({ tts: "elevenlabs:voice-1" }, 1))
      expect(missingKey).toContain("tts:elevenlabs:voice-1 cannot be used")
      expect(missingKey).toContain("ELEVENLABS_API_KEY")
    }).pipe(Effect.provide(env({}))))

  it.scoped("an organization's stored credential is the vendor's key for its calls, for overridden and default services alike", () =>
    Effect.gen(function*() {
      const llm = yield* startFakeOpenAi([], () => reply("Hello."))
      yield* Effect.gen(function*() {
      const o = yield* overrides
      const repo = yield* CredentialsRepo
      const box = yield* SecretBox
      const org = (yield* (yield* OrganizationsRepo).findOrCreate("credentials-org", new Date().toISOString())).id
      const store = (uuid: string, type: "api_key" | "bearer_token" | "basic_auth", data: Record<string, string>) =>
        repo.insert({
          uuid, organization_id: org, name: uuid, description: null, credential_type: type,
          sealed_data: box.encrypt(JSON.stringify(data)), created_at: new Date().toISOString(), updated_at: null
        })
      yield* store("org-openai", "api_key", { api_key: "sk-org-key" })
      yield* store("org-bearer", "bearer_token", { token: "sk-org-bearer" })
      yield* store("org-basic", "basic_auth", { username: "u", password: "p" })
      const ask = (resolved: { readonly llm?: Option.Option<{ readonly model: LanguageModel.Service }> }) =>
        Option.getOrThrow(resolved.llm!).model.generateText({ prompt: "Hi" })

      // The default model (AGENTLINE_LLM), with only its vendor's key replaced.
      const byDefault = yield* o.resolve({ credentials: { openai: "org-openai" } }, org)
      expect(Option.map(byDefault.llm!, (l) => l.name)).toEqual(Option.some("openai:gpt-4.1-mini"))
      yield* ask(byDefault)
      expect(llm.received.at(-1)?.authorization).toBe("Bearer sk-org-key")
      // An overridden model with a bearer_token credential, as read from workflow_configurations.
      yield* ask(yield* o.resolve(modelOverrides({ llm: "openai:gpt-4.1", credentials: { " OpenAI ": " org-bearer ", deepgram: 7 } }), org))
      expect(llm.received.at(-1)?.authorization).toBe("Bearer sk-org-bearer")
      // Without credentials: the environment's key.
      yield* ask(yield* o.resolve({ llm: "openai:gpt-4.1" }, org))
      expect(llm.received.at(-1)?.authorization).toBe("Bearer sk-env-key")
      // Unusable credentials fail with words for the run's log, never the secret.
      const wrongType = yield* Effect.flip(o.resolve({ credentials: { openai: "org-basic" } }, org))
      expect(wrongType).toContain("basic_auth credential; a vendor key must be an api_key or bearer_token credential")
      const missing = yield* Effect.flip(o.resolve({ credentials: { openai: "nope" } }, org))
      expect(missing).toContain("credential nope does not exist in this organization")
      // Another organization cannot use this one's credential.
      const other = yield* Effect.flip(o.resolve({ credentials: { openai: "org-openai" } }, org + 1))
      expect(other).toContain("does not exist in this organization")
      // A vendor the agent does not use: nothing is built for it.
      expect(yield* o.resolve({ credentials: { deepgram: "org-openai" } }, org)).toEqual({})
      }).pipe(Effect.provide(env({ AGENTLINE_LLM: "openai:gpt-4.1-mini", OPENAI_API_KEY: "sk-env-key", OPENAI_BASE_URL: llm.url })))
    }))
})
