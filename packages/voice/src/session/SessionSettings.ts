/**
 * A call's turn-taking and time limits, from the agent's `workflow_configurations` (the reference's
 * keys; nulls and bad values mean "unset", as in the reference). Pure.
 */
import { type ModelOverrides, modelOverrides } from "./ServiceOverrides.js"
import { defaultVadSettings, type VadSettings } from "./Vad.js"

export interface SessionSettings {
  readonly vad: VadSettings
  readonly idleMillis: number
  readonly maxCallMillis: number
  /** Answering machine detection by the runtime (`voicemail_detection`), when enabled. */
  readonly voicemail: VoicemailDetection | undefined
  /** Services this agent uses instead of the defaults (`model_overrides`). */
  readonly overrides: ModelOverrides
  /** Phrases that mean "do not call me again" (`do_not_call_detection`); empty when turned off. */
  readonly optOutPhrases: ReadonlyArray<string>
}

/** What callers say when they want no more calls; matched case- and punctuation-insensitively. */
export const DEFAULT_OPT_OUT_PHRASES: ReadonlyArray<string> = [
  "do not call",
  "don't call",
  "dont call",
  "stop calling",
  "never call",
  "remove me from your list",
  "take me off your list",
  "remove my number",
  "put me on your do not call list"
]

/**
 * How the runtime tells an answering machine from a person, on the first thing the callee says: a
 * greeting that goes on without a pause for `longSpeechMillis` is a machine's; otherwise, with
 * `useLanguageModel`, the agent's model classifies the words (with `systemPrompt` when given).
 */
export interface VoicemailDetection {
  readonly longSpeechMillis: number
  readonly useLanguageModel: boolean
  readonly systemPrompt: string
}

/** The reference's `long_speech_timeout` default. */
export const DEFAULT_LONG_SPEECH_SECONDS = 8

export const DEFAULT_VOICEMAIL_PROMPT = "You listen to the first words said when a phone call was answered and decide who " +
  "answered: a person, or an answering machine or voicemail greeting (\"you have reached...\", \"leave a message after " +
  "the tone\", \"is not available\"). Reply with one word: voicemail or human."

/**
 * The reference's `smart_turn_stop_secs` default is 2.0 s because its turn analyzer decides first; our
 * endpointing is the silence itself, so it waits 0.8 s unless the agent says otherwise.
 */
export const DEFAULT_STOP_SECONDS = 0.8
export const DEFAULT_IDLE_SECONDS = 10
export const DEFAULT_MAX_CALL_SECONDS = 300
/** The reference caps `max_call_duration` at 1200 s (a slot's stale timeout). */
export const MAX_CALL_SECONDS_CAP = 1200

const positive = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined

export const sessionSettings = (configurations: Readonly<Record<string, unknown>> | null | undefined): SessionSettings => {
  const c = configurations ?? {}
  const stop = positive(c.smart_turn_stop_secs) ?? DEFAULT_STOP_SECONDS
  return {
    vad: { ...defaultVadSettings, stopMillis: Math.round(stop * 1000) },
    idleMillis: Math.round((positive(c.max_user_idle_timeout) ?? DEFAULT_IDLE_SECONDS) * 1000),
    maxCallMillis: Math.round(Math.min(positive(c.max_call_duration) ?? DEFAULT_MAX_CALL_SECONDS, MAX_CALL_SECONDS_CAP) * 1000),
    voicemail: voicemailDetection(c.voicemail_detection),
    overrides: modelOverrides(c.model_overrides),
    optOutPhrases: optOutPhrases(c.do_not_call_detection)
  }
}

/** `voicemail_detection` as the runtime uses it; undefined unless `enabled` is true. */
export const voicemailDetection = (value: unknown): VoicemailDetection | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const v = value as Record<string, unknown>
  if (v.enabled !== true) return undefined
  const prompt = typeof v.system_prompt === "string" && v.system_prompt.trim() !== "" ? v.system_prompt.trim() : DEFAULT_VOICEMAIL_PROMPT
  return {
    longSpeechMillis: Math.round((positive(v.long_speech_timeout) ?? DEFAULT_LONG_SPEECH_SECONDS) * 1000),
    // The reference's default: the workflow's own model decides.
    useLanguageModel: v.use_workflow_llm !== false,
    systemPrompt: prompt
  }
}

/** Whether the model's answer to the detection prompt says a machine answered. */
export const saysVoicemail = (answer: string): boolean => /\b(voicemail|voice mail|answering machine|machine)\b/i.test(answer) && !/^\s*human\b/i.test(answer)

/**
 * `do_not_call_detection`: on unless `enabled` is false; `phrases` (non-blank strings) replace the
 * defaults. A caller who says one is added to the organization's do-not-call list.
 */
export const optOutPhrases = (value: unknown): ReadonlyArray<string> => {
  const v = typeof value === "object" && value !== null ? value as Record<string, unknown> : {}
  if (v.enabled === false) return []
  const own = Array.isArray(v.phrases) ? v.phrases.filter((p): p is string => typeof p === "string" && p.trim() !== "") : []
  return own.length > 0 ? own.map(simplify) : DEFAULT_OPT_OUT_PHRASES.map(simplify)
}

/** Lower case, letters, digits, apostrophes and single spaces: how phrases and transcripts are compared. */
const simplify = (text: string) => text.toLowerCase().replace(/[’‘]/g, "'").replace(/[^a-z0-9' ]+/g, " ").replace(/\s+/g, " ").trim()

/** The phrase of `phrases` the caller said, if any (whole words). */
export const optOutIn = (text: string, phrases: ReadonlyArray<string>): string | undefined => {
  const said = ` ${simplify(text)} `
  return phrases.find((phrase) => phrase !== "" && said.includes(` ${phrase} `))
}
