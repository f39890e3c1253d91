/**
 * An HTTP tool's request, rendered from its template and a call's values (pure).
 *
 * Placeholders (`{{order_id}}`, `{{initial_context.phone_number}}`, `{{gathered_context.email}}`, with
 * `{{name | default}}` as in prompts) name the model's arguments, the preset parameters, or the call's
 * context. In the URL a value is percent-encoded and may stand only in the path and query; in header
 * values it is written as text; in the body template a string that is one placeholder alone becomes the
 * value itself (a number stays a number), others are text. GET and DELETE send the values the URL does
 * not use as query parameters; POST, PUT and PATCH send the body template, or every value as one flat
 * JSON object when there is none.
 */
import type { HttpApiConfig, PresetToolParameter, ToolHttpMethod, ToolParameterType } from "@agentline/api/tools/Tools"
import { Either } from "effect"
import { renderValue } from "../webhooks/WebhookNodes.js"
import { renderTemplate, templateVariables } from "../workflows/Template.js"
import { CONTEXT_ROOTS } from "./ParameterSchemas.js"

/** The call's context, as prompts see it. */
export interface CallContext {
  readonly initial_context: Readonly<Record<string, unknown>>
  readonly gathered_context: Readonly<Record<string, unknown>>
}

export const EMPTY_CONTEXT: CallContext = { initial_context: {}, gathered_context: {} }

export interface RenderedRequest {
  readonly method: ToolHttpMethod
  /** With the query parameters. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The JSON body; null for GET and DELETE. */
  readonly body: unknown
  /** The values sent as query parameters (GET and DELETE); null otherwise. */
  readonly query: Readonly<Record<string, unknown>> | null
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

export const sendsBody = (method: ToolHttpMethod): boolean => method !== "GET" && method !== "DELETE"

/** A placeholder's name refers to the call's context (`initial_context.x`) rather than to a parameter. */
export const isContextName = (name: string): boolean => CONTEXT_ROOTS.some((root) => name === root || name.startsWith(`${root}.`))

/** The names every placeholder in `template` uses (any JSON value: strings inside it are templates). */
export const placeholderNames = (template: unknown): ReadonlyArray<string> => {
  if (typeof template === "string") return templateVariables(template).map((v) => v.name)
  if (Array.isArray(template)) return template.flatMap(placeholderNames)
  if (isObject(template)) return Object.values(template).flatMap(placeholderNames)
  return []
}

/** A context in which every name (dotted ones nested) has the value `value`. */
const everyNameIs = (names: ReadonlyArray<string>, value: string): Record<string, unknown> => {
  const root: Record<string, unknown> = {}
  for (const name of names) {
    const path = name.split(".")
    let at = root
    path.forEach((key, index) => {
      if (index === path.length - 1) {
        if (!isObject(at[key])) at[key] = value
      } else {
        if (!isObject(at[key])) at[key] = {}
        at = at[key] as Record<string, unknown>
      }
    })
  }
  return root
}

/**
 * Why a URL template may not be used, or `undefined`: it must be an absolute http(s) URL once its
 * placeholders are filled, and placeholders may not decide where the request goes (scheme, host, port).
 * The probe URL (placeholders filled with `x`) is returned for the target rule.
 */
export const urlTemplateProblem = (template: string): Either.Either<string, string> => {
  const names = templateVariables(template).map((v) => v.name)
  const probe = renderTemplate(template, everyNameIs(names, "x"))
  let parsed: URL
  try {
    parsed = new URL(probe)
  } catch {
    return Either.left("url must be an absolute http or https URL")
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return Either.left("url must be an http or https URL")
  const placeholder = template.search(/\{\{/)
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(template)
  if (names.length > 0 && placeholder !== -1 && (authority === null || placeholder < authority[0].length)) {
    return Either.left("url placeholders may stand in the path and query only: the scheme, host and port are fixed")
  }
  if (parsed.username !== "" || parsed.password !== "") return Either.left("url must not carry a user or password; use a credential")
  return Either.right(probe)
}

/** Every leaf of `value` as percent-encoded text, keeping its shape (dotted placeholders still resolve). */
const encodedForUrl = (value: unknown): unknown => {
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodedForUrl(v)]))
  if (value === undefined || value === null) return value
  return encodeURIComponent(typeof value === "string" ? value : JSON.stringify(value))
}

const queryValue = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value))

/** "." or ".." in a URL path, also percent-encoded (URL parsers read `%2e` as a dot there). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i

/** No line breaks or other control characters in a header value (a model's argument could carry them). */
const HEADER_VALUE = /^[^\u0000-\u0008\u000a-\u001f\u007f]*$/

const coerce = (value: unknown, type: ToolParameterType): Either.Either<unknown, string> => {
  if (typeof value !== "string") return Either.right(value)
  switch (type) {
    case "string":
      return Either.right(value)
    case "number": {
      const n = Number(value)
      return value.trim() !== "" && Number.isFinite(n) ? Either.right(n) : Either.left(`'${value}' is not a number`)
    }
    case "boolean":
      return value === "true" ? Either.right(true) : value === "false" ? Either.right(false) : Either.left(`'${value}' is not true or false`)
    case "object":
    case "array":
      try {
        return Either.right(JSON.parse(value))
      } catch {
        return Either.left(`'${value}' is not JSON`)
      }
  }
}

const isEmpty = (value: unknown) => value === undefined || value === null || value === ""

/**
 * The preset parameters' values: `overrides` (a test's `preset_params`) first, else the template
 * rendered against the call's context (a template that is one placeholder alone keeps its value's type).
 * Left: every required preset without a value, and every value not of its type.
 */
export const presetValues = (
  presets: ReadonlyArray<PresetToolParameter>,
  context: CallContext,
  overrides: Readonly<Record<string, unknown>> = {}
): Either.Either<Record<string, unknown>, ReadonlyArray<string>> => {
  const values: Record<string, unknown> = {}
  const problems: Array<string> = []
  for (const preset of presets) {
    const raw = Object.hasOwn(overrides, preset.name) ? overrides[preset.name] : renderValue(preset.value_template, { ...context })
    if (isEmpty(raw)) {
      if (preset.required) problems.push(`preset parameter ${preset.name} has no value (${preset.value_template} is not set for this call)`)
      continue
    }
    const typed = coerce(raw, preset.type)
    if (Either.isLeft(typed)) problems.push(`preset parameter ${preset.name}: ${typed.left}`)
    else values[preset.name] = typed.right
  }
  return problems.length > 0 ? Either.left(problems) : Either.right(values)
}

/**
 * The request for `values` (the model's checked arguments with the presets' values), or why it cannot
 * be sent (a header value that would hold a line break).
 */
export const renderRequest = (
  config: HttpApiConfig,
  values: Readonly<Record<string, unknown>>,
  context: CallContext
): Either.Either<RenderedRequest, string> => {
  const scope: Record<string, unknown> = { ...values, initial_context: context.initial_context, gathered_context: context.gathered_context }
  const inUrl = new Set(templateVariables(config.url).map((v) => v.name))
  const base = renderTemplate(config.url, encodedForUrl(scope) as Record<string, unknown>)
  // A path segment that is "." or ".." is not a value a URL can carry: the URL would be read as another
  // path (a model's argument ".." would move the request up the API's tree). Refused rather than sent.
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(base)?.[1] ?? ""
  if (path.split("/").some((segment) => DOT_SEGMENT.test(segment))) {
    return Either.left("a value in the url's path would make a segment '.' or '..', which a URL cannot carry as a value")
  }
  const headers: Record<string, string> = {}
  for (const [name, template] of Object.entries(config.headers ?? {})) {
    const value = renderTemplate(template, scope)
    if (!HEADER_VALUE.test(value)) return Either.left(`header ${name} would contain a line break or control character`)
    headers[name] = value
  }
  if (sendsBody(config.method)) {
    const body = config.body_template !== undefined && config.body_template !== null ? renderValue(config.body_template, scope) : { ...values }
    return Either.right({ method: config.method, url: base, headers: { "content-type": "application/json", ...headers }, body, query: null })
  }
  const query = Object.fromEntries(Object.entries(values).filter(([name, value]) => !inUrl.has(name) && value !== undefined))
  const url = new URL(base)
  for (const [name, value] of Object.entries(query)) url.searchParams.append(name, queryValue(value))
  return Either.right({ method: config.method, url: url.toString(), headers, body: null, query })
}
