import { energy, VoiceActivity } from "@agentline/core/audio/VoiceActivity"
import { AgentLanguageModel, SpeechServiceNames } from "@agentline/voice/session/LanguageModelTools"
import type { LanguageModel } from "@effect/ai"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Logger, Option } from "effect"
import {
  describeSetup,
  framed,
  OPENAI_DEFAULT_URL,
  problemsOf,
  VoiceReadiness,
  type VoiceSetup,
  withoutCredentials,
  layer as readinessLayer
} from "../../src/voice/VoiceReadiness.js"

const setup = (overrides: Partial<VoiceSetup> = {}): VoiceSetup => ({
  llm: Option.some("openai:gpt-4.1-mini"),
  stt: "local",
  tts: "local",
  vad: "silero",
  openAi: Option.some({ baseUrl: OPENAI_DEFAULT_URL, keySet: true }),
  localMissing: { stt: Option.none(), tts: Option.none() },
  ...overrides
})

describe("VoiceReadiness (pure)", () => {
  it("names the four services in one line, with the OpenAI-compatible server they go to", () => {
    expect(describeSetup(setup())).toBe(
      "Voice runtime: LLM openai:gpt-4.1-mini at https://api.openai.com/v1, STT local (pocketsphinx), TTS local (espeak-ng), VAD silero"
    )
    expect(describeSetup(setup({
      llm: Option.some("openai:llama3.1:8b"),
      stt: "deepgram:nova-3",
      tts: "openai:alloy",
      vad: "energy",
      openAi: Option.some({ baseUrl: "http://localhost:11434/v1", keySet: false })
    }))).toBe(
      "Voice runtime: LLM openai:llama3.1:8b at http://localhost:11434/v1, STT deepgram:nova-3, TTS openai:alloy at http://localhost:11434/v1, VAD energy"
    )
    // An embedding application's own services: names only.
    expect(describeSetup(setup({ llm: Option.none(), openAi: Option.none(), stt: "unnamed" }))).toBe(
      "Voice runtime: LLM none, STT unnamed, TTS local (espeak-ng), VAD silero"
    )
  })

  it("a server address is logged without the credentials it may carry", () => {
    expect(withoutCredentials("https://user:s3cret@llm.internal:8443/v1/")).toBe("https://llm.internal:8443/v1")
    expect(withoutCredentials("not a url")).toBe("(not a valid URL)")
  })

  it("no language model is a problem that says what to set; a ready setup has none", () => {
    expect(problemsOf(setup())).toEqual([])
    const [problem, ...others] = problemsOf(setup({ llm: Option.none() }))
    expect(others).toEqual([])
    expect(problem!.service).toBe("llm")
    expect(problem!.message).toContain("AGENTLINE_LLM is not set")
    expect(problem!.message).toContain("AGENTLINE_LLM=openai:<model>")
    expect(problem!.message).toContain("OPENAI_BASE_URL=http://localhost:11434/v1")
    expect(framed(problem!)).toMatch(/^\n={100}\nNo language model is configured .*\n={100}$/s)
  })

  it("an OpenAI service without a key (at OpenAI's own address), and offline engines not installed, are problems of their service", () => {
    const noKey = problemsOf(setup({ tts: "openai:alloy", openAi: Option.some({ baseUrl: OPENAI_DEFAULT_URL, keySet: false }) }))
    expect(noKey.map((p) => p.service)).toEqual(["llm", "tts"])
    expect(noKey[0]!.message).toContain("AGENTLINE_LLM=openai:gpt-4.1-mini goes to OpenAI (https://api.openai.com/v1) but OPENAI_API_KEY is not set")
    // A local server needs no key.
    expect(problemsOf(setup({ openAi: Option.some({ baseUrl: "http://localhost:11434/v1", keySet: false }) }))).toEqual([])
    const missing = problemsOf(setup({ localMissing: { stt: Option.some("pocketsphinx_continuous not installed (apt-get install pocketsphinx pocketsphinx-en-us)"), tts: Option.some("espeak-ng not installed (apt-get install espeak-ng sox)") } }))
    expect(missing.map((p) => p.service)).toEqual(["stt", "tts"])
    expect(missing[0]!.message).toContain("cannot run: pocketsphinx_continuous not installed (apt-get install pocketsphinx pocketsphinx-en-us). Agents cannot hear callers.")
    expect(missing[1]!.message).toContain("Agents cannot speak.")
  })
})

describe("VoiceReadiness.layer (at start)", () => {
  const logged = (env: Record<string, string>, llm: Option.Option<string>) =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const capture = Logger.make(({ logLevel, message }) => {
        lines.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
      })
      const model = Option.map(llm, (name) => ({ name, model: {} as LanguageModel.Service }))
      const readiness = yield* VoiceReadiness.pipe(
        Effect.provide(readinessLayer({ fromEnvironment: true }).pipe(
          Layer.provide(Layer.succeed(AgentLanguageModel, model)),
          Layer.provide(Logger.replace(Logger.defaultLogger, capture)),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
        )),
        Effect.provideService(SpeechServiceNames, { stt: "local", tts: "local" }),
        Effect.provideService(VoiceActivity, energy())
      )
      return { lines, readiness }
    })

  it.effect("logs the services; without an LLM, a framed warning saying what to set (never a key)", () =>
    Effect.gen(function*() {
      const { lines, readiness } = yield* logged({ OPENAI_API_KEY: "sk-secret-value" }, Option.none())
      expect(lines[0]).toBe("INFO Voice runtime: LLM none, STT local (pocketsphinx), TTS local (espeak-ng), VAD energy")
      // The offline engines are installed on this machine (docs/voice.md): the LLM is the one problem.
      expect(lines.length).toBe(2)
      expect(lines[1]).toMatch(/^WARN \n={100}\nNo language model is configured \(AGENTLINE_LLM is not set\)/)
      expect(lines.join("\n")).not.toContain("sk-secret-value")
      expect(readiness.problems.map((p) => p.service)).toEqual(["llm"])
    }))

  it.effect("a local model at OPENAI_BASE_URL: one line, no warning", () =>
    Effect.gen(function*() {
      const { lines, readiness } = yield* logged(
        { OPENAI_BASE_URL: "http://ollama:pw@localhost:11434/v1" },
        Option.some("openai:llama3.1:8b")
      )
      expect(lines).toEqual([
        "INFO Voice runtime: LLM openai:llama3.1:8b at http://localhost:11434/v1, STT local (pocketsphinx), TTS local (espeak-ng), VAD energy"
      ])
      expect(readiness.problems).toEqual([])
    }))
})
