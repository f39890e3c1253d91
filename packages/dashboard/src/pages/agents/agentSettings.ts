/**
 * The agent's template context variables (default values for `{{name}}` placeholders) and its
 * configurations (`workflow_configurations`: call limits, turn-taking, voicemail detection…) as forms.
 * The configurations the runtime reads most are fields; every other key stays, edited as JSON, so
 * nothing set through the API is lost by a save here.
 */
import type { JsonObject } from "./definitionGraph.js"

export interface VariableRow {
  readonly name: string
  readonly value: string
}

/** Variables as rows; non-string values are shown as JSON and sent back as JSON when they parse. */
export const variableRows = (variables: JsonObject | null | undefined): Array<VariableRow> =>
  Object.entries(variables ?? {}).map(([name, value]) => ({ name, value: typeof value === "string" ? value : JSON.stringify(value) }))

/** The rows as the API's object, or the problems (empty or repeated names). */
export const variablesObject = (
  rows: ReadonlyArray<VariableRow>,
  original: JsonObject | null | undefined
): { readonly value: JsonObject } | { readonly errors: ReadonlyArray<string> } => {
  const value: JsonObject = {}
  const errors: Array<string> = []
  rows.forEach((row, index) => {
    const name = row.name.trim()
    if (name === "") errors.push(`Variable ${index + 1} needs a name`)
    else if (name in value) errors.push(`Variable ${name} is listed twice`)
    else {
      const before = original?.[name]
      // A value that was not a string stays typed when it still parses (a number stays a number).
      if (before !== undefined && typeof before !== "string") {
        try {
          value[name] = JSON.parse(row.value)
          return
        } catch {
          // Now text.
        }
      }
      value[name] = row.value
    }
  })
  return errors.length > 0 ? { errors } : { value }
}

export interface ConfigurationField {
  readonly path: readonly [string] | readonly [string, string]
  readonly label: string
  readonly kind: "number" | "checkbox" | "text"
  /** A text field's usual values (offered in a list; any other is accepted). */
  readonly suggestions?: ReadonlyArray<string>
  readonly help: string
  readonly min?: number
  readonly max?: number
  readonly step?: number
}

/**
 * The agent's own services (`model_overrides`, voice/src/session/ServiceOverrides.ts), in the form of
 * AGENTLINE_LLM / AGENTLINE_STT / AGENTLINE_TTS, with the vendors this build of the server has adapters
 * for. Empty: the server's default. A vendor's stored credential (`model_overrides.credentials`) stays in
 * the other settings' JSON.
 */
export const MODEL_OVERRIDE_FIELDS: ReadonlyArray<ConfigurationField> = [
  {
    path: ["model_overrides", "llm"],
    label: "Language model",
    kind: "text",
    suggestions: ["openai:gpt-4o-mini", "openai:gpt-4.1", "openai:gpt-4.1-mini"],
    help: "openai:<model> (OpenAI or the server's compatible one); empty: the server's AGENTLINE_LLM"
  },
  {
    path: ["model_overrides", "stt"],
    label: "Speech to text",
    kind: "text",
    suggestions: ["local", "deepgram:nova-3", "openai:gpt-4o-transcribe", "openai:whisper-1"],
    help: "local, deepgram:<model> or openai:<model>; empty: the server's AGENTLINE_STT"
  },
  {
    path: ["model_overrides", "tts"],
    label: "Voice (text to speech)",
    kind: "text",
    suggestions: ["local", "openai:alloy", "openai:nova", "elevenlabs:<voice id>", "cartesia:<voice id>"],
    help: "local, openai:<voice>, elevenlabs:<voice id> or cartesia:<voice id>; empty: the server's AGENTLINE_TTS"
  }
]

/** The configurations the voice runtime reads (voice/src/session/SessionSettings.ts), with its defaults. */
export const CONFIGURATION_FIELDS: ReadonlyArray<ConfigurationField> = [
  { path: ["max_call_duration"], label: "Longest call (seconds)", kind: "number", min: 1, max: 1200, step: 1, help: "Default 300, at most 1200" },
  { path: ["max_user_idle_timeout"], label: "Silence before the agent checks in (seconds)", kind: "number", min: 1, step: 1, help: "Default 10" },
  { path: ["smart_turn_stop_secs"], label: "Pause that ends the caller's turn (seconds)", kind: "number", min: 0.1, step: 0.1, help: "Default 0.8" },
  { path: ["voicemail_detection", "enabled"], label: "Detect voicemail", kind: "checkbox", help: "Hang up on answering machines" },
  ...MODEL_OVERRIDE_FIELDS
]

export type ConfigurationValues = Record<string, string | boolean>

const keyOf = (field: ConfigurationField) => field.path.join(".")

const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

const read = (config: JsonObject, path: ConfigurationField["path"]): unknown =>
  path.length === 1 ? config[path[0]] : isObject(config[path[0]]) ? (config[path[0]] as JsonObject)[path[1]] : undefined

/** The fields' values and the rest of the configurations as JSON text (the fields' keys taken out). */
export const splitConfigurations = (config: JsonObject | null | undefined): { readonly values: ConfigurationValues; readonly rest: string } => {
  const source = config ?? {}
  const values: ConfigurationValues = {}
  const rest: Record<string, unknown> = structuredClone(source) as Record<string, unknown>
  for (const field of CONFIGURATION_FIELDS) {
    const value = read(source, field.path)
    values[keyOf(field)] = field.kind === "checkbox"
      ? value === true
      : field.kind === "text"
      ? (typeof value === "string" ? value : "")
      : typeof value === "number"
      ? String(value)
      : ""
    // A text field takes a string only; anything else under its key stays in the JSON, as it is.
    if (field.kind === "text" && value !== undefined && typeof value !== "string") continue
    if (field.path.length === 1) delete rest[field.path[0]]
    else if (isObject(rest[field.path[0]])) {
      const inner = rest[field.path[0]] as Record<string, unknown>
      delete inner[field.path[1]]
      if (Object.keys(inner).length === 0) delete rest[field.path[0]]
    }
  }
  return { values, rest: Object.keys(rest).length === 0 ? "" : JSON.stringify(rest, null, 2) }
}

/** The configurations to send: the JSON rest with the fields set on it (empty numbers and unticked boxes unset). */
export const joinConfigurations = (
  values: ConfigurationValues,
  rest: string
): { readonly value: JsonObject } | { readonly errors: Record<string, string> } => {
  const errors: Record<string, string> = {}
  let out: Record<string, unknown> = {}
  if (rest.trim() !== "") {
    try {
      const parsed: unknown = JSON.parse(rest)
      if (isObject(parsed)) out = { ...parsed }
      else errors.rest = "Other settings must be a JSON object"
    } catch (error) {
      errors.rest = `Other settings are not valid JSON: ${error instanceof Error ? error.message : String(error)}`
    }
  }
  for (const field of CONFIGURATION_FIELDS) {
    const raw = values[keyOf(field)]
    let value: unknown
    if (field.kind === "checkbox") value = raw === true ? true : undefined
    else if (field.kind === "text") {
      value = String(raw ?? "").trim() === "" ? undefined : String(raw).trim()
      // Empty: nothing to set (a string it had was taken out of the JSON; what else is there stays).
      if (value === undefined) continue
    }
    else {
      const text = String(raw ?? "").trim()
      if (text !== "") {
        value = Number(text)
        if (!Number.isFinite(value)) {
          errors[keyOf(field)] = `${field.label} must be a number`
          continue
        }
      }
    }
    if (field.path.length === 1) {
      if (value === undefined) delete out[field.path[0]]
      else out[field.path[0]] = value
    } else {
      const inner: Record<string, unknown> = isObject(out[field.path[0]]) ? { ...(out[field.path[0]] as JsonObject) } : {}
      if (value === undefined) delete inner[field.path[1]]
      else inner[field.path[1]] = value
      if (Object.keys(inner).length === 0) delete out[field.path[0]]
      else out[field.path[0]] = inner
    }
  }
  return Object.keys(errors).length > 0 ? { errors } : { value: out }
}

export const configurationKey = keyOf

/** JSON with object keys sorted, so two values that differ only in key order compare equal. */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : isObject(value)
    ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]))
    : value

/** Whether a stored part (null meaning unset) and the form's value are the same; `{}` counts as unset. */
export const sameSetting = (stored: JsonObject | null | undefined, edited: JsonObject): boolean =>
  JSON.stringify(canonical(stored ?? {})) === JSON.stringify(canonical(edited))
