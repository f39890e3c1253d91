/**
 * Corrections to the OpenAPI document the platform generates, so it describes what the server really
 * answers and what the spec declares (applied through `OpenApi.Transform` on `AgentlineApi`):
 *
 * - The platform lists its own `HttpApiDecodeError` (with a `_tag` and parse issues) as a 400 answer;
 *   this server never sends it: a request that does not decode gets 422 `ValidationError`. It is
 *   removed, with the schemas only it uses.
 * - The answers every request can get before its handler runs, on the operations that can get them
 *   (the server's request guard and error handling): 422 on an operation with parameters or a body (a
 *   value that does not decode; malformed JSON); 400 (a body that cannot be read), 413 (a body over the
 *   route's limit) on an operation with a body, and 415 on one whose body is JSON or a multipart form.
 *   The errors its handler can fail with are declared on each endpoint, and those of its authentication
 *   on its middleware.
 * - Objects do not say `additionalProperties: false`: the server ignores body fields it does not know
 *   (as the reference implementation does, so its clients' extra fields do no harm), and responses may
 *   gain fields, which clients should ignore.
 * - The spec declares the credentials as header parameters (`X-API-Key`, required on the endpoints
 *   that take only an API key; `authorization`, optional) besides the security schemes; clients
 *   generated from the parameters send them.
 * - A path the reference writes with a trailing slash (`/api/v1/campaign/`) is listed without it: the
 *   server routes both alike, and the document's linters want one spelling.
 */
import { OpenApiJsonSchema } from "@effect/platform"
import type { Schema } from "effect"
import { BadRequestResponse, PayloadTooLargeResponse, UnsupportedMediaTypeResponse, ValidationErrorResponse } from "./Errors.js"

/** A JSON value: what the document is made of. */
export type Json = string | number | boolean | null | ReadonlyArray<Json> | JsonObject
export interface JsonObject {
  readonly [key: string]: Json
}

export const isJsonObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The object at `key` of `value`, or an empty one when there is none. */
export const objectAt = (value: Json | undefined, key: string): JsonObject => {
  const inner = isJsonObject(value) ? value[key] : undefined
  return isJsonObject(inner) ? inner : {}
}

export const arrayAt = (value: Json | undefined, key: string): ReadonlyArray<Json> => {
  const inner = isJsonObject(value) ? value[key] : undefined
  return Array.isArray(inner) ? inner : []
}

export const stringAt = (value: Json | undefined, key: string): string | undefined => {
  const inner = isJsonObject(value) ? value[key] : undefined
  return typeof inner === "string" ? inner : undefined
}

/** `value` (what a JSON Schema generator made) as JSON; `undefined` fields are left out, as JSON.stringify would. */
export const toJson = (value: unknown): Json => {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value
  if (Array.isArray(value)) return value.map(toJson)
  if (typeof value === "object") {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, toJson(v)]))
  }
  throw new TypeError(`Not a JSON value: ${typeof value}`)
}

const DECODE_ERROR_SCHEMAS = ["HttpApiDecodeError", "Issue", "PropertyKey"]
const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"
const BAD_REQUEST_DESCRIPTION = "The request cannot be carried out as sent"

const jsonSchemaOf = (response: Json | undefined): Json | undefined =>
  isJsonObject(response) ? objectAt(objectAt(response, "content"), "application/json")["schema"] : undefined

/** The members of a union schema, or the schema itself. */
const membersOf = (schema: Json): ReadonlyArray<Json> => (isJsonObject(schema) && Array.isArray(schema["anyOf"]) ? arrayAt(schema, "anyOf") : [schema])

const withoutDecodeError = (responses: JsonObject): JsonObject => {
  const bad = responses["400"]
  const schema = jsonSchemaOf(bad)
  if (!isJsonObject(bad) || schema === undefined) return responses
  const { "400": _, ...rest } = responses
  const remaining = membersOf(schema).filter((member) => stringAt(member, "$ref") !== DECODE_ERROR_REF)
  if (remaining.length === membersOf(schema).length) return responses
  if (remaining.length === 0) return rest
  return {
    ...responses,
    "400": {
      ...bad,
      description: BAD_REQUEST_DESCRIPTION,
      content: { ...objectAt(bad, "content"), "application/json": { schema: remaining.length === 1 ? remaining[0]! : { anyOf: remaining } } }
    }
  }
}

const credentialParameters = (security: ReadonlyArray<Json>): Array<JsonObject> => {
  const schemes = new Set(security.flatMap((requirement) => (isJsonObject(requirement) ? Object.keys(requirement) : [])))
  const parameters: Array<JsonObject> = []
  if (schemes.has("apiKey")) {
    const only = schemes.size === 1
    parameters.push({
      name: "X-API-Key",
      in: "header",
      required: only,
      schema: only ? { type: "string" } : { anyOf: [{ type: "string" }, { type: "null" }] },
      description: only
        ? "The organization's API key (this endpoint takes no login token)"
        : "The organization's API key; alternatively a login token in `authorization`"
    })
  }
  if (schemes.has("bearer")) {
    parameters.push({
      name: "authorization",
      in: "header",
      required: false,
      schema: { anyOf: [{ type: "string" }, { type: "null" }] },
      description: "`Bearer <token>` of a login session (POST /api/v1/auth/login); X-API-Key wins when both are sent"
    })
  }
  return parameters
}

/** `responses` answering `status` with the error `schema` too (its component added to `defs`). */
const withError = (
  responses: JsonObject,
  status: string,
  schema: Schema.Schema.Any,
  description: string,
  defs: Record<string, Json>
): JsonObject => {
  const made: Record<string, OpenApiJsonSchema.JsonSchema> = {}
  const added = toJson(OpenApiJsonSchema.makeWithDefs(schema, { defs: made }))
  for (const [name, definition] of Object.entries(made)) defs[name] ??= toJson(definition)
  const existing = responses[status]
  const current = jsonSchemaOf(existing)
  if (!isJsonObject(existing) || current === undefined) {
    return { ...responses, [status]: { description, content: { "application/json": { schema: added } } } }
  }
  const members = membersOf(current)
  const ref = stringAt(added, "$ref")
  if (members.some((member) => stringAt(member, "$ref") === ref)) return responses
  return {
    ...responses,
    [status]: {
      ...existing,
      description: `${stringAt(existing, "description") ?? ""}; or: ${description}`,
      content: { ...objectAt(existing, "content"), "application/json": { schema: { anyOf: [...members, added] } } }
    }
  }
}

/** The answers of the request guard and the error handling, before and around the handler (see above). */
const transportErrors = (operation: JsonObject, defs: Record<string, Json>): JsonObject => {
  let responses = objectAt(operation, "responses")
  const body = isJsonObject(operation["requestBody"]) ? objectAt(operation["requestBody"], "content") : undefined
  if (arrayAt(operation, "parameters").length > 0 || body !== undefined) {
    responses = withError(responses, "422", ValidationErrorResponse, "Validation error: every invalid field is listed", defs)
  }
  if (body !== undefined) {
    responses = withError(responses, "400", BadRequestResponse, "The request body could not be read", defs)
    responses = withError(responses, "413", PayloadTooLargeResponse, "The body is larger than this endpoint allows", defs)
    if (body["application/json"] !== undefined || body["multipart/form-data"] !== undefined) {
      responses = withError(responses, "415", UnsupportedMediaTypeResponse, "The body is not in the media type this endpoint reads", defs)
    }
  }
  return responses
}

const correctOperation = (operation: JsonObject, defs: Record<string, Json>): JsonObject => {
  const parameters = arrayAt(operation, "parameters")
  const declared = new Set(parameters.map((p) => `${stringAt(p, "in")}:${(stringAt(p, "name") ?? "").toLowerCase()}`))
  const added = credentialParameters(arrayAt(operation, "security")).filter((p) => !declared.has(`header:${String(p["name"]).toLowerCase()}`))
  return { ...operation, parameters: [...parameters, ...added], responses: withoutDecodeError(transportErrors(operation, defs)) }
}

/** `value` with every `additionalProperties: false` taken out, at any depth (see above: unknown fields are ignored). */
export const openObjects = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(openObjects)
  if (!isJsonObject(value)) return value
  return Object.fromEntries(
    Object.entries(value).filter(([key, v]) => !(key === "additionalProperties" && v === false)).map(([key, v]) => [key, openObjects(v)])
  )
}

/** `/api/v1/campaign/` → `/api/v1/campaign` (the server routes both alike). */
const withoutTrailingSlash = (path: string) => (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path)

const PARAMETER = /\{([^}]+)\}/g
const parameterNames = (path: string) => [...path.matchAll(PARAMETER)].map((match) => match[1]!)

/**
 * `operation` at `path` with the parameter names of `canonical`, a path that differs only by them (the
 * reference's `PATCH /workflow-recordings/{id}` beside `DELETE .../{recording_id}`). Path parameter
 * names do not travel: the request is the same.
 */
const renameParameters = (operation: JsonObject, path: string, canonical: string): JsonObject => {
  const from = parameterNames(path)
  const to = parameterNames(canonical)
  return {
    ...operation,
    parameters: arrayAt(operation, "parameters").map((parameter) => {
      const name = stringAt(parameter, "name") ?? ""
      const index = isJsonObject(parameter) && parameter["in"] === "path" ? from.indexOf(name) : -1
      if (!isJsonObject(parameter) || index === -1 || to[index] === name) return parameter
      const note = `the reference names this parameter \`${name}\``
      const description = stringAt(parameter, "description")
      return { ...parameter, name: to[index]!, description: description === undefined ? note : `${description} (${note})` }
    })
  }
}

/** The document with the corrections above. */
export const correct = (document: JsonObject): JsonObject => {
  const defs: Record<string, Json> = { ...objectAt(objectAt(document, "components"), "schemas") }
  for (const name of DECODE_ERROR_SCHEMAS) delete defs[name]
  const paths: Record<string, JsonObject> = {}
  const byShape = new Map<string, string>()
  for (const [path, item] of Object.entries(objectAt(document, "paths"))) {
    const trimmed = withoutTrailingSlash(path)
    const shape = trimmed.replace(PARAMETER, "{}")
    const key = byShape.get(shape) ?? trimmed
    byShape.set(shape, key)
    const corrected: Record<string, Json> = {}
    for (const [method, operation] of Object.entries(isJsonObject(item) ? item : {})) {
      corrected[method] = isJsonObject(operation) ? correctOperation(renameParameters(operation, trimmed, key), defs) : operation
    }
    paths[key] = { ...paths[key], ...corrected }
  }
  return {
    ...document,
    paths: openObjects(paths),
    components: { ...objectAt(document, "components"), schemas: openObjects(defs) }
  }
}
