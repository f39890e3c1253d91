/**
 * Per-agent choice of services: an agent's `workflow_configurations.model_overrides` names other
 * services than the operator's defaults for its calls, in the same `<provider>:<model or voice>` form
 * as `AGENTLINE_LLM`, `AGENTLINE_STT`, `AGENTLINE_TTS`:
 *
 *   "model_overrides": { "llm": "openai:gpt-4.1", "stt": "deepgram:nova-3", "tts": "elevenlabs:<voice id>" }
 *
 * Each key is optional; what is not overridden uses the default. `credentials` names, per vendor, one
 * of the organization's stored credentials (`/credentials`, encrypted at rest, masked in responses) whose
 * key the agent's calls use for that vendor instead of the operator's environment key — for the
 * services it overrides and for the defaults of that vendor alike:
 *
 *   "model_overrides": { "llm": "openai:gpt-4.1", "credentials": { "openai": "<credential uuid>" } }
 *
 * The port that turns choices into
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
  /** Vendor (`openai`, `deepgram`, `elevenlabs`, `cartesia`) → the uuid of a stored credential. */
  readonly credentials?: Readonly<Record<string, string>>
}

/** `model_overrides` as the runtime uses it: non-blank strings for `llm`, `stt`, `tts`; anything else is unset. */
export const modelOverrides = (value: unknown): ModelOverrides => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {}
  const v = value as Record<string, unknown>
  const pick = (key: "llm" | "stt" | "tts") =>
    typeof v[key] === "string" && (v[key] as string).trim() !== "" ? { [key]: (v[key] as string).trim() } : {}
  const credentials = typeof v.credentials === "object" && v.credentials !== null && !Array.isArray(v.credentials)
    ? Object.fromEntries(
      Object.entries(v.credentials as Record<string, unknown>)
        .filter((entry): entry is [string, string] => typeof entry[1] === "string" && entry[1].trim() !== "")
        .map(([vendor, uuid]) => [vendor.trim().toLowerCase(), uuid.trim()])
    )
    : {}
  return { ...pick("llm"), ...pick("stt"), ...pick("tts"), ...(Object.keys(credentials).length > 0 ? { credentials } : {}) }
}

export const hasOverrides = (overrides: ModelOverrides): boolean =>
  overrides.llm !== undefined || overrides.stt !== undefined || overrides.tts !== undefined || overrides.credentials !== undefined

/** The services an override chose, with their names for `usage_info` and prices. */
export interface OverriddenServices {
  readonly llm?: Option.Option<{ readonly name: string; readonly model: LanguageModel.Service }>
  readonly stt?: { readonly service: SpeechToTextService; readonly name: string }
  readonly tts?: { readonly service: TextToSpeechService; readonly name: string }
}

export class VoiceServiceOverrides extends Context.Tag("@agentline/voice/VoiceServiceOverrides")<VoiceServiceOverrides, {
  /**
   * The services `overrides` names for a call of `organizationId` (whose stored credentials it may
   * name); fails with a message for the run's log when one cannot be had.
   */
  readonly resolve: (overrides: ModelOverrides, organizationId: number) => Effect.Effect<OverriddenServices, string>
}>() {}
