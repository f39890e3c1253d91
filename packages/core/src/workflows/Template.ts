/**
 * Template variables in prompts and greetings: `{{name}}`, `{{ name }}`, `{{name | default text}}`
 * (legacy `{{name | fallback:text}}`), dotted paths (`{{gathered_context.city}}`).
 *
 * A variable without a value and without a default renders as an empty string: a call should not
 * fail over a missing greeting name, and campaign creation already refuses CSVs lacking the variables
 * an agent needs (`definitionVariables`).
 */
const PATTERN = /\{\{\s*([^{}|]+?)\s*(?:\|\s*([^{}]*?)\s*)?\}\}/g

export interface TemplateVariable {
  readonly name: string
  readonly hasDefault: boolean
  readonly path: ReadonlyArray<string>
}

const defaultOf = (filter: string | undefined): string | undefined =>
  filter === undefined ? undefined : filter.startsWith("fallback:") ? filter.slice("fallback:".length) : filter

const lookup = (context: Record<string, unknown>, path: ReadonlyArray<string>): unknown => {
  let current: unknown = context
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return current
}

const show = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value)

export const renderTemplate = (template: string, context: Record<string, unknown>): string =>
  template.replace(PATTERN, (_, name: string, filter: string | undefined) => {
    const value = lookup(context, name.split("."))
    const fallback = defaultOf(filter)
    if (value === undefined || value === null || value === "") return fallback ?? ""
    return show(value)
  })

export const templateVariables = (template: string): ReadonlyArray<TemplateVariable> =>
  Array.from(template.matchAll(PATTERN), (m) => ({
    name: m[1]!,
    hasDefault: m[2] !== undefined,
    path: m[1]!.split(".")
  }))

/** Variables every call provides itself; a CSV need not have them. */
const SYSTEM = new Set(["campaign_id", "provider", "source_uuid", "phone_number", "called_number", "caller_number"])

const PROMPTED = new Set(["startCall", "agentNode", "endCall", "globalNode"])

/**
 * The variables a definition needs from each call's context: used in prompts, the start greeting and
 * transition speech, without a default, not a dotted path, not provided by the system. Sorted, unique.
 */
export const definitionVariables = (definition: unknown): ReadonlyArray<string> => {
  const texts: Array<string> = []
  const d = definition as { nodes?: ReadonlyArray<any>; edges?: ReadonlyArray<any> } | null
  for (const node of d?.nodes ?? []) {
    if (!PROMPTED.has(node?.type)) continue
    if (typeof node?.data?.prompt === "string") texts.push(node.data.prompt)
    if (node.type === "startCall" && typeof node?.data?.greeting === "string") texts.push(node.data.greeting)
  }
  for (const edge of d?.edges ?? []) {
    if (typeof edge?.data?.transition_speech === "string") texts.push(edge.data.transition_speech)
  }
  const names = new Set<string>()
  for (const text of texts) {
    for (const v of templateVariables(text)) {
      if (!v.hasDefault && v.path.length === 1 && !SYSTEM.has(v.name)) names.add(v.name)
    }
  }
  return [...names].sort()
}
