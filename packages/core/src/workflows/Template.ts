/**
 * Template variables in prompts, greetings and transition speech:
 *
 * - `{{name}}` and `{{ name }}`: the value of `name` in the call context;
 * - `{{name | default text}}`: the default when the value is missing (absent, null or empty string);
 * - `{{name | fallback:text}}`: the reference's legacy spelling of the same default;
 * - `{{gathered_context.city}}`: a dotted path into nested objects.
 *
 * A variable without a value and without a default renders as an empty string rather than failing or
 * leaving the braces in: a prompt that says `Hello {{first_name}}` must not make the agent read out
 * braces, and campaign creation already refuses a CSV lacking the variables an agent needs
 * (`definitionVariables`). Text that is not a well-formed placeholder (`{{ two words }}`, a lone `{{`)
 * is left as written. Rendering is one pass: a value that itself contains `{{x}}` is not expanded
 * again, so contact data cannot inject variables.
 */
import { PROMPTED_NODE_TYPES } from "./WorkflowDefinition.js"

/** Names are anything without blanks, braces or `|`, as the reference accepts; the filter is free text. */
const PATTERN = /\{\{\s*([^\s{}|]+)\s*(?:\|([^{}]*))?\}\}/g

const LEGACY_FALLBACK = /^fallback\s*:/

export interface TemplateVariable {
  /** As written, dotted paths included (`gathered_context.city`). */
  readonly name: string
  readonly hasDefault: boolean
  readonly path: ReadonlyArray<string>
}

const defaultOf = (filter: string | undefined): string | undefined => {
  if (filter === undefined) return undefined
  const trimmed = filter.trim()
  return LEGACY_FALLBACK.test(trimmed) ? trimmed.replace(LEGACY_FALLBACK, "").trim() : trimmed
}

const lookup = (context: Record<string, unknown>, name: string): unknown => {
  let current: unknown = context
  for (const key of name.split(".")) {
    if (current === null || typeof current !== "object") {
      current = undefined
      break
    }
    current = Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined
  }
  // A CSV column may itself be named with a dot; the flat key is the only place it can live.
  return current === undefined && name.includes(".") && Object.hasOwn(context, name) ? context[name] : current
}

const isMissing = (value: unknown) => value === undefined || value === null || value === ""

const show = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value instanceof Date) return value.toISOString()
  if (typeof value === "object" && value !== null) {
    try {
      return JSON.stringify(value)
    } catch {
      // bigint inside, or a cycle: a prompt still gets something readable.
      return String(value)
    }
  }
  return String(value)
}

export const renderTemplate = (template: string, context: Record<string, unknown>): string =>
  template.replace(PATTERN, (_match, name: string, filter: string | undefined) => {
    const value = lookup(context, name)
    return isMissing(value) ? defaultOf(filter) ?? "" : show(value)
  })

/** Every placeholder in order of appearance, repeats included (each may or may not carry a default). */
export const templateVariables = (template: string): ReadonlyArray<TemplateVariable> =>
  Array.from(template.matchAll(PATTERN), (m) => ({
    name: m[1]!,
    hasDefault: m[2] !== undefined,
    path: m[1]!.split(".")
  }))

/** Variables every call provides itself; a CSV need not have them. */
export const SYSTEM_VARIABLES: ReadonlyArray<string> = [
  "campaign_id",
  "provider",
  "source_uuid",
  "phone_number",
  "called_number",
  "caller_number"
]
const SYSTEM = new Set(SYSTEM_VARIABLES)

const PROMPTED: ReadonlySet<string> = new Set(PROMPTED_NODE_TYPES)

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const texts = (definition: unknown): ReadonlyArray<string> => {
  if (!isObject(definition)) return []
  const out: Array<string> = []
  for (const node of Array.isArray(definition.nodes) ? definition.nodes : []) {
    if (!isObject(node) || typeof node.type !== "string" || !PROMPTED.has(node.type) || !isObject(node.data)) continue
    if (typeof node.data.prompt === "string") out.push(node.data.prompt)
    if (node.type === "startCall" && typeof node.data.greeting === "string") out.push(node.data.greeting)
  }
  for (const edge of Array.isArray(definition.edges) ? definition.edges : []) {
    if (isObject(edge) && isObject(edge.data) && typeof edge.data.transition_speech === "string") {
      out.push(edge.data.transition_speech)
    }
  }
  return out
}

/**
 * The variables a definition needs from each call's context (a campaign's CSV columns): those used in
 * prompts, the start greeting and transition speech, at least once without a default, not a dotted path
 * (those name runtime data such as `gathered_context`), not provided by the system. Sorted, unique.
 * Takes any value because stored definitions are plain JSON; what is not shaped like one has none.
 */
export const definitionVariables = (definition: unknown): ReadonlyArray<string> => {
  const names = new Set<string>()
  for (const text of texts(definition)) {
    for (const v of templateVariables(text)) {
      if (!v.hasDefault && v.path.length === 1 && !SYSTEM.has(v.name)) names.add(v.name)
    }
  }
  return [...names].sort()
}
