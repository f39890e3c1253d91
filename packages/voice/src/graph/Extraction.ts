/**
 * Decoding what the LLM passes to a tool, and turning the extraction tool's arguments into
 * `gathered_context` values of the declared types.
 */
import type { ExtractionVariable as ExtractionVariableSchema } from "@agentline/core/workflows/WorkflowDefinition"

type ExtractionVariable = typeof ExtractionVariableSchema.Type

export type Arguments =
  | { readonly _tag: "Object"; readonly value: Readonly<Record<string, unknown>> }
  | { readonly _tag: "Invalid"; readonly reason: string }

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** LLM APIs hand arguments over as JSON text; some as parsed objects. No arguments at all is `{}`. */
export const decodeArguments = (raw: unknown): Arguments => {
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) return { _tag: "Object", value: {} }
  let value: unknown = raw
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw)
    } catch {
      return { _tag: "Invalid", reason: "not valid JSON" }
    }
  }
  return isObject(value) ? { _tag: "Object", value } : { _tag: "Invalid", reason: "not an object" }
}

type Value = string | number | boolean

/**
 * A value as its declared type, or undefined when it is not one. Models often quote numbers and
 * booleans ("42", "true"), so such strings count; anything else is refused rather than guessed at.
 */
export const coerce = (type: ExtractionVariable["type"], value: unknown): Value | undefined => {
  switch (type) {
    case "string":
      return typeof value === "string" ? value : typeof value === "number" && Number.isFinite(value) ? String(value) : undefined
    case "number": {
      if (typeof value === "number") return Number.isFinite(value) ? value : undefined
      if (typeof value !== "string" || value.trim() === "") return undefined
      const n = Number(value.trim())
      return Number.isFinite(n) ? n : undefined
    }
    case "boolean": {
      if (typeof value === "boolean") return value
      const word = typeof value === "string" ? value.trim().toLowerCase() : undefined
      return word === "true" ? true : word === "false" ? false : undefined
    }
  }
}

export interface Extracted {
  readonly values: Readonly<Record<string, Value>>
  /** For the LLM: what was recorded and what was refused, so it can ask again. */
  readonly summary: string
}

/**
 * Keeps the declared variables the arguments carry with a value of the declared type. Absent and null
 * ones are not known yet and are left as they were; undeclared names are ignored (the model cannot write
 * arbitrary keys into the run, such as `call_disposition`).
 */
export const extractValues = (
  variables: ReadonlyArray<ExtractionVariable>,
  args: Readonly<Record<string, unknown>>
): Extracted => {
  const values: Record<string, Value> = {}
  const refused: Array<string> = []
  for (const variable of variables) {
    if (!Object.hasOwn(args, variable.name)) continue
    const raw = args[variable.name]
    if (raw === undefined || raw === null) continue
    const value = coerce(variable.type, raw)
    if (value === undefined) refused.push(`${variable.name} (expected a ${variable.type})`)
    else values[variable.name] = value
  }
  const recorded = Object.keys(values)
  const parts = [
    recorded.length > 0 ? `Recorded ${recorded.join(", ")}.` : "Nothing recorded.",
    ...(refused.length > 0 ? [`Not recorded: ${refused.join(", ")}.`] : [])
  ]
  return { values, summary: parts.join(" ") }
}
