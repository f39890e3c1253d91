/**
 * Which speech and language services the operator chose: `AGENTLINE_LLM`, `AGENTLINE_STT`,
 * `AGENTLINE_TTS`, each `<provider>:<model or voice>` or `local` (e.g. `openai:gpt-4.1-mini`,
 * `deepgram:nova-3`, `elevenlabs:<voice id>`). Pure parsing; `VoiceServices` turns choices into layers.
 */
import { Either } from "effect"

export type Service = "llm" | "stt" | "tts"

/** The providers each service can use, and whether they need a model or voice after the colon. */
export const PROVIDERS: Record<Service, Record<string, "model" | "none">> = {
  llm: { openai: "model" },
  stt: { local: "none", deepgram: "model", openai: "model" },
  tts: { local: "none", openai: "model", elevenlabs: "model", cartesia: "model" }
}

export interface VoiceChoice {
  readonly provider: string
  /** The model or voice; absent for `local`. */
  readonly name?: string
}

/** Why a choice cannot be used, in words for the operator. */
export class InvalidVoiceChoice {
  readonly _tag = "InvalidVoiceChoice"
  constructor(readonly message: string) {}
}

const VARIABLE: Record<Service, string> = { llm: "AGENTLINE_LLM", stt: "AGENTLINE_STT", tts: "AGENTLINE_TTS" }

export const parseChoice = (service: Service, value: string): Either.Either<VoiceChoice, InvalidVoiceChoice> => {
  const trimmed = value.trim()
  const colon = trimmed.indexOf(":")
  const provider = (colon === -1 ? trimmed : trimmed.slice(0, colon)).toLowerCase()
  const name = colon === -1 ? "" : trimmed.slice(colon + 1).trim()
  const known = PROVIDERS[service]
  const needs = known[provider]
  if (needs === undefined) {
    return Either.left(
      new InvalidVoiceChoice(
        `${VARIABLE[service]}=${value}: unknown provider "${provider}" (one of: ${Object.keys(known).join(", ")})`
      )
    )
  }
  if (needs === "model" && name === "") {
    return Either.left(
      new InvalidVoiceChoice(`${VARIABLE[service]}=${value}: "${provider}" needs a model or voice after a colon, e.g. ${provider}:<name>`)
    )
  }
  if (needs === "none" && name !== "") {
    return Either.left(new InvalidVoiceChoice(`${VARIABLE[service]}=${value}: "${provider}" takes nothing after it`))
  }
  return Either.right(name === "" ? { provider } : { provider, name })
}
