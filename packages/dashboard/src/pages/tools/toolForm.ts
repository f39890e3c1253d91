/**
 * The Tools page's forms as plain data: the new-tool form and the request it makes (the API checks
 * everything else and names each field at fault), and sample arguments for a test from a tool's JSON
 * Schema. Pure, so it is tested without a browser.
 */
import type { Tool, ToolHttpMethod, ToolParameterType } from "@agentline/api/tools/Tools"
import { Either } from "effect"

/** One parameter of the list form, as its row of fields holds it (every column a string). */
export interface ParameterRow {
  readonly name: string
  readonly type: ToolParameterType
  readonly description: string
  readonly required: "yes" | "no"
}

export const PARAMETER_TYPES: ReadonlyArray<ToolParameterType> = ["string", "number", "boolean", "object", "array"]

export interface HeaderRow {
  readonly key: string
  readonly value: string
}

export interface ToolFormValues {
  readonly kind: "http_api" | "mcp"
  readonly name: string
  readonly description: string
  readonly url: string
  /** "" for none. */
  readonly credentialUuid: string
  // HTTP tools
  readonly method: ToolHttpMethod
  readonly headers: ReadonlyArray<HeaderRow>
  /** The reference's list of parameters, or a JSON Schema typed as text. */
  readonly parametersAs: "list" | "schema"
  readonly parameters: ReadonlyArray<ParameterRow>
  readonly schemaText: string
  /** A JSON object typed as text; empty: every parameter as one flat object. */
  readonly bodyText: string
  readonly timeoutMs: string
  readonly waitingMessage: string
  // MCP tools
  /** One server tool name per line; none: all of them. */
  readonly toolsFilter: string
  readonly timeoutSecs: string
}

export const emptyToolForm: ToolFormValues = {
  kind: "http_api",
  name: "",
  description: "",
  url: "",
  credentialUuid: "",
  method: "GET",
  headers: [],
  parametersAs: "list",
  parameters: [],
  schemaText: "{\n  \"type\": \"object\",\n  \"properties\": {},\n  \"required\": []\n}",
  bodyText: "",
  timeoutMs: "",
  waitingMessage: "",
  toolsFilter: "",
  timeoutSecs: ""
}

const jsonObject = (text: string, what: string): Either.Either<Record<string, unknown>, string> => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? Either.right(value as Record<string, unknown>)
      : Either.left(`${what} must be a JSON object`)
  } catch (error) {
    return Either.left(`${what} is not JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
}

const numberOrAbsent = (text: string): number | undefined => (text.trim() === "" ? undefined : Number(text))

const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter((l) => l !== "")

/**
 * The create request of the form's values; Left: what the form itself can tell is wrong (JSON that does
 * not parse). Empty optional fields are left out, so the server's defaults apply.
 */
export const toolRequest = (form: ToolFormValues): Either.Either<Record<string, unknown>, ReadonlyArray<string>> => {
  const problems: Array<string> = []
  const base = {
    name: form.name,
    ...(form.description.trim() !== "" ? { description: form.description } : {})
  }
  const credential = form.credentialUuid !== "" ? { credential_uuid: form.credentialUuid } : {}
  if (form.kind === "mcp") {
    const timeout = numberOrAbsent(form.timeoutSecs)
    return Either.right({
      ...base,
      definition: {
        type: "mcp",
        config: {
          url: form.url.trim(),
          ...credential,
          tools_filter: lines(form.toolsFilter),
          ...(timeout !== undefined ? { timeout_secs: timeout } : {})
        }
      }
    })
  }
  let parameters: unknown = form.parameters.filter((p) => p.name.trim() !== "").map((p) => ({
    name: p.name.trim(),
    type: p.type,
    description: p.description,
    required: p.required === "yes"
  }))
  if (form.parametersAs === "schema") {
    const schema = jsonObject(form.schemaText, "The parameters' JSON Schema")
    if (Either.isLeft(schema)) problems.push(schema.left)
    else parameters = schema.right
  }
  let body: Record<string, unknown> | undefined
  if (form.bodyText.trim() !== "") {
    const parsed = jsonObject(form.bodyText, "The body template")
    if (Either.isLeft(parsed)) problems.push(parsed.left)
    else body = parsed.right
  }
  if (problems.length > 0) return Either.left(problems)
  const headers = form.headers.filter((h) => h.key.trim() !== "")
  const timeout = numberOrAbsent(form.timeoutMs)
  return Either.right({
    ...base,
    definition: {
      type: "http_api",
      config: {
        method: form.method,
        url: form.url.trim(),
        ...credential,
        ...(headers.length > 0 ? { headers: Object.fromEntries(headers.map((h) => [h.key.trim(), h.value])) } : {}),
        parameters,
        ...(body !== undefined ? { body_template: body } : {}),
        ...(timeout !== undefined ? { timeout_ms: timeout } : {}),
        ...(form.waitingMessage.trim() !== "" ? { customMessage: form.waitingMessage.trim(), customMessageType: "text" } : {})
      }
    }
  })
}

const sampleOf = (schema: unknown): unknown => {
  if (typeof schema !== "object" || schema === null) return null
  const s = schema as Record<string, unknown>
  if (s.default !== undefined) return s.default
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0]
  switch (s.type) {
    case "string":
      return ""
    case "number":
    case "integer":
      return 0
    case "boolean":
      return false
    case "array":
      return []
    case "object":
      return Object.fromEntries(
        Object.entries(typeof s.properties === "object" && s.properties !== null ? s.properties : {}).map(([k, v]) => [k, sampleOf(v)])
      )
    default:
      return null
  }
}

/** Arguments to start a test from: every parameter of the schema with a placeholder value of its type. */
export const sampleArguments = (schema: unknown): string => JSON.stringify(sampleOf(schema) ?? {}, null, 2)

/** The JSON Schema of a tool's parameters as the model sees it (the list form made into one). */
export const toolSchema = (tool: Tool): unknown => {
  if (tool.definition.type !== "http_api") return { type: "object", properties: {} }
  const parameters = tool.definition.config.parameters
  if (parameters === undefined || parameters === null) return { type: "object", properties: {} }
  if (!Array.isArray(parameters)) return parameters
  return {
    type: "object",
    properties: Object.fromEntries(parameters.map((p) => [p.name, { type: p.type }]))
  }
}
