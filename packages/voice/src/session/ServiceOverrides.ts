/**
 * Per-agent choice of services: an agent's `workflow_configurations.model_overrides` names other
 * services than the operator's defaults for its calls, in the same `<provider>:<model or voice>` form
 * as `AGENTLINE_LLM`, `AGENTLINE_STT`, `AGENTLINE_TTS`:
 *
 *   "model_overrides": { "llm": "openai:gpt-4.1", "stt": "deepgram:nova-3", "tts": "elevenlabs:<voice id>" }
 *
 * Each key is optional; what is not overridden uses the default. The port that turns choices into
 * services is `VoiceServiceOverrides`, provided where the adapters are known (the server); without
 * it, overrides are reported as unavailable and the defaults are used.
 */
import type { SpeechToTextService, TextToSpeechService } from "@agentline/core/voice/Speech"
import type { LanguageModel } from "@effect/ai"
import { Context, type Effect, type Option } from "effect"

export interface ModelOverrides {
  readonly llm?: string
  readonly stt?: string
  readonly tts?: string
}

/** `model_overrides` as the runtime uses it: non-blank strings for `llm`, `stt`, `tts`; anything else is unset. */
export const modelOverrides = (value: unknown): ModelOverrides => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {}
  const v = value as Record<string, unknown>
  const pick = (key: "llm" | "stt" | "tts") =>
    typeof v[key] === "string" && (v[key] as string).trim() !== "" ? { [key]: (v[key] as string).trim() } : {}
  return { ...pick("llm"), ...pick("stt"), ...pick("tts") }
}

export const hasOverrides = (overrides: ModelOverrides): boolean =>
  overrides.llm !== undefined || overrides.stt !== undefined || overrides.tts !== undefined

/** The services an override chose, with their names for `usage_info` and prices. */
export interface OverriddenServices {
  readonly llm?: Option.Option<{ readonly name: string; readonly model: LanguageModel.Service }>
  readonly stt?: { readonly service: SpeechToTextService; readonly name: string }
  readonly tts?: { readonly service: TextToSpeechService; readonly name: string }
}

export class VoiceServiceOverrides extends Context.Tag("@agentline/voice/VoiceServiceOverrides")<VoiceServiceOverrides, {
  /** The services `overrides` names; fails with a message for the run's log when one cannot be had. */
  readonly resolve: (overrides: ModelOverrides) => Effect.Effect<OverriddenServices, string>
}>() {}
