/**
 * What the voice runtime runs on, and what keeps it from holding a conversation, found when the server
 * starts: logged then (one line naming the LLM, STT, TTS and VAD; a warning framed to be seen for each
 * problem) and served to the dashboard (`GET /api/v1/user/configurations/user/validate`), which shows
 * the problems in a banner. Names and addresses only, never a key.
 */
import { VoiceActivity } from "@agentline/core/audio/VoiceActivity"
import * as Installed from "@agentline/voice-local/Installed"
import { AgentLanguageModel, SpeechServiceNames } from "@agentline/voice/session/LanguageModelTools"
import { NodeContext } from "@effect/platform-node"
import { Config, Context, Effect, Layer, Option } from "effect"

export type VoiceService = "llm" | "stt" | "tts"

export interface VoiceSetup {
  /** The language model's key (`openai:gpt-4.1-mini`); none: no language model. */
  readonly llm: Option.Option<string>
  /** The speech services' keys (`local`, `deepgram:nova-3`, `elevenlabs:<voice>`). */
  readonly stt: string
  readonly tts: string
  /** The voice activity detector (`silero`, `energy`). */
  readonly vad: string
  /**
   * Where the `openai:` services go (`OPENAI_BASE_URL`, credentials removed) and whether
   * `OPENAI_API_KEY` is set; none when the services were not chosen from the environment (an
   * embedding application's own).
   */
  readonly openAi: Option.Option<{ readonly baseUrl: string; readonly keySet: boolean }>
  /** What the offline engines lack (when chosen): programs or the recognizer's model, with what to install. */
  readonly localMissing: { readonly stt: Option.Option<string>; readonly tts: Option.Option<string> }
}

/** A reason calls cannot go as configured, with what to do (the wire's `{model, message}`). */
export interface VoiceProblem {
  readonly service: VoiceService
  readonly message: string
}

export const OPENAI_DEFAULT_URL = "https://api.openai.com/v1"

/** An address without the user and password it may carry (`https://user:secret@host` is valid). */
export const withoutCredentials = (url: string): string => {
  try {
    const parsed = new URL(url)
    parsed.username = ""
    parsed.password = ""
    return parsed.toString().replace(/\/$/, "")
  } catch {
    return "(not a valid URL)"
  }
}

const isOpenAi = (key: string) => key.startsWith("openai:")

/** One line for the log: `Voice runtime: LLM openai:llama3.1:8b at http://localhost:11434/v1, STT local (pocketsphinx), ...`. */
export const describeSetup = (setup: VoiceSetup): string => {
  const where = (key: string) =>
    Option.match(setup.openAi, { onNone: () => "", onSome: (o) => (isOpenAi(key) ? ` at ${o.baseUrl}` : "") })
  const engine = (key: string, local: string) => (key === "local" ? `local (${local})` : `${key}${where(key)}`)
  const llm = Option.match(setup.llm, { onNone: () => "none", onSome: (key) => `${key}${where(key)}` })
  return `Voice runtime: LLM ${llm}, STT ${engine(setup.stt, "pocketsphinx")}, TTS ${engine(setup.tts, "espeak-ng")}, VAD ${setup.vad}`
}

const VARIABLE: Record<VoiceService, string> = { llm: "AGENTLINE_LLM", stt: "AGENTLINE_STT", tts: "AGENTLINE_TTS" }

/** The offline engines in the problems' words: what each is, what agents lose without it, what to do. */
const OFFLINE: Record<"stt" | "tts", { readonly engine: string; readonly without: string; readonly fix: string }> = {
  stt: {
    engine: "The offline recognizer (AGENTLINE_STT=local, the default)",
    without: "Agents cannot hear callers",
    fix: "Install it, or choose a vendor (e.g. AGENTLINE_STT=deepgram:nova-3 with DEEPGRAM_API_KEY)"
  },
  tts: {
    engine: "The offline voice (AGENTLINE_TTS=local, the default)",
    without: "Agents cannot speak",
    fix: "Install them, or choose a vendor (e.g. AGENTLINE_TTS=elevenlabs:<voice id> with ELEVENLABS_API_KEY)"
  }
}

/** What stops the configured services from holding a conversation, each with what to set or install. */
export const problemsOf = (setup: VoiceSetup): ReadonlyArray<VoiceProblem> => {
  const problems: Array<VoiceProblem> = []
  if (Option.isNone(setup.llm)) {
    problems.push({
      service: "llm",
      message: "No language model is configured (AGENTLINE_LLM is not set): agents cannot hold a conversation. " +
        "Each answered call plays the agent's greeting and hangs up, unless the agent names its own model " +
        "(model_overrides). Set AGENTLINE_LLM=openai:<model> and restart the server: for OpenAI with " +
        "OPENAI_API_KEY (e.g. openai:gpt-4.1-mini), or for any OpenAI-compatible server with OPENAI_BASE_URL " +
        "(a local Ollama: OPENAI_BASE_URL=http://localhost:11434/v1 and AGENTLINE_LLM=openai:llama3.1:8b). See docs/voice.md."
    })
  }
  if (Option.isSome(setup.openAi) && !setup.openAi.value.keySet && setup.openAi.value.baseUrl === OPENAI_DEFAULT_URL) {
    const chosen: ReadonlyArray<readonly [VoiceService, string]> = [
      ["llm", Option.getOrElse(setup.llm, () => "")],
      ["stt", setup.stt],
      ["tts", setup.tts]
    ]
    for (const [service, key] of chosen) {
      if (!isOpenAi(key)) continue
      problems.push({
        service,
        message: `${VARIABLE[service]}=${key} goes to OpenAI (${OPENAI_DEFAULT_URL}) but OPENAI_API_KEY is not set: ` +
          "OpenAI will refuse every request (401) unless the agent names an organization's stored key " +
          "(model_overrides.credentials). Set OPENAI_API_KEY, or OPENAI_BASE_URL for a server that needs no key, and restart the server."
      })
    }
  }
  for (const service of ["stt", "tts"] as const) {
    const missing = setup.localMissing[service]
    if (Option.isNone(missing)) continue
    const { engine, fix, without } = OFFLINE[service]
    problems.push({ service, message: `${engine} cannot run: ${missing.value}. ${without}. ${fix}, and restart the server.` })
  }
  return problems
}

const RULE = "=".repeat(100)

/** A problem as the log shows it: between rules, so it stands out among the start's lines. */
export const framed = (problem: VoiceProblem): string => `\n${RULE}\n${problem.message}\n${RULE}`

export interface Readiness {
  readonly setup: Option.Option<VoiceSetup>
  readonly problems: ReadonlyArray<VoiceProblem>
}

/**
 * The voice runtime's readiness as found at start. By default nothing is known and nothing is wrong:
 * an embedding application that answers calls with its own handler has no voice runtime here.
 */
export class VoiceReadiness extends Context.Reference<VoiceReadiness>()("@agentline/http/VoiceReadiness", {
  defaultValue: (): Readiness => ({ setup: Option.none(), problems: [] })
}) {}

/** The services' line (info) and each problem (a framed warning). */
export const report = (readiness: Readiness) =>
  Effect.gen(function*() {
    if (Option.isSome(readiness.setup)) yield* Effect.logInfo(describeSetup(readiness.setup.value))
    for (const problem of readiness.problems) yield* Effect.logWarning(framed(problem))
  })

/**
 * Finds the readiness of the built voice services (their names, the detector, the offline engines'
 * programs) and reports it. `fromEnvironment`: the services were chosen from `AGENTLINE_*`, so the
 * `OPENAI_*` variables are theirs too.
 */
export const layer = (options: { readonly fromEnvironment: boolean }): Layer.Layer<VoiceReadiness, never, AgentLanguageModel> =>
  Layer.effect(
    VoiceReadiness,
    Effect.gen(function*() {
      const llm = yield* AgentLanguageModel
      const names = yield* SpeechServiceNames
      const vad = yield* VoiceActivity
      const openAi = options.fromEnvironment
        ? Option.some(yield* Effect.all({
          baseUrl: Config.option(Config.string("OPENAI_BASE_URL")).pipe(
            Config.map(Option.match({ onNone: () => OPENAI_DEFAULT_URL, onSome: withoutCredentials }))
          ),
          keySet: Config.option(Config.redacted("OPENAI_API_KEY")).pipe(Config.map(Option.isSome))
        }).pipe(Effect.orElseSucceed(() => ({ baseUrl: OPENAI_DEFAULT_URL, keySet: false }))))
        : Option.none()
      const setup: VoiceSetup = {
        llm: Option.map(llm, (m) => m.name),
        stt: names.stt,
        tts: names.tts,
        vad: vad.name,
        openAi,
        localMissing: {
          stt: names.stt === "local" ? yield* Installed.speechToTextMissing() : Option.none(),
          tts: names.tts === "local" ? yield* Installed.textToSpeechMissing : Option.none()
        }
      }
      const readiness: Readiness = { setup: Option.some(setup), problems: problemsOf(setup) }
      yield* report(readiness)
      return readiness
    }).pipe(Effect.provide(NodeContext.layer))
  )
