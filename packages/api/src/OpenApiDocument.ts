/**
 * Corrections to the OpenAPI document the platform generates, so it describes what the server really
 * answers and what the spec declares (applied through `OpenApi.Transform` on `AgentlineApi`):
 *
 * - The platform lists its own `HttpApiDecodeError` (with a `_tag` and parse issues) as a 400 answer;
 *   this server never sends it: a request that does not decode gets 422 `ValidationError`. It is
 *   removed, with the schemas only it uses.
 * - Objects do not say `additionalProperties: false`: the server ignores body fields it does not know
 *   (as the reference implementation does, so its clients' extra fields do no harm), and responses may
 *   gain fields, which clients should ignore.
 * - The spec declares the credentials as header parameters (`X-API-Key`, required on the endpoints
 *   that take only an API key; `authorization`, optional) besides the security schemes; clients
 *   generated from the parameters send them.
 */
const DECODE_ERROR_SCHEMAS = ["HttpApiDecodeError", "Issue", "PropertyKey"]
const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"
const BAD_REQUEST_DESCRIPTION = "The request cannot be carried out as sent"

type Json = Record<string, any>

const withoutDecodeError = (responses: Json): Json => {
  const bad = responses["400"]
  const schema = bad?.content?.["application/json"]?.schema
  if (schema === undefined) return responses
  const { "400": _, ...rest } = responses
  if (schema.$ref === DECODE_ERROR_REF) return rest
  if (!Array.isArray(schema.anyOf)) return responses
  const remaining = schema.anyOf.filter((member: Json) => member.$ref !== DECODE_ERROR_REF)
  if (remaining.length === 0) return rest
  return {
    ...responses,
    "400": {
      ...bad,
      description: BAD_REQUEST_DESCRIPTION,
      content: { ...bad.content, "application/json": { schema: remaining.length === 1 ? remaining[0] : { anyOf: remaining } } }
    }
  }
}

const credentialParameters = (security: ReadonlyArray<Json> | undefined): Array<Json> => {
  const schemes = new Set((security ?? []).flatMap((requirement) => Object.keys(requirement)))
  const parameters: Array<Json> = []
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

const correctOperation = (operation: Json): Json => {
  const declared = new Set((operation.parameters ?? []).map((p: Json) => `${p.in}:${String(p.name).toLowerCase()}`))
  const added = credentialParameters(operation.security).filter((p) => !declared.has(`${p.in}:${p.name.toLowerCase()}`))
  return {
    ...operation,
    parameters: [...(operation.parameters ?? []), ...added],
    ...(operation.responses !== undefined ? { responses: withoutDecodeError(operation.responses) } : {})
  }
}

/** `value` with every `additionalProperties: false` taken out, at any depth (see above: unknown fields are ignored). */
export const openObjects = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(openObjects)
  if (value === null || typeof value !== "object") return value
  return Object.fromEntries(
    Object.entries(value).filter(([key, v]) => !(key === "additionalProperties" && v === false)).map(([key, v]) => [key, openObjects(v)])
  )
}

export const correct = (document: Json): Json => openObjects(correctOperations(document)) as Json

const correctOperations = (document: Json): Json => {
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    paths[path] = Object.fromEntries(Object.entries<Json>(item).map(([method, operation]) => [method, correctOperation(operation)]))
  }
  const schemas = { ...document.components?.schemas }
  for (const name of DECODE_ERROR_SCHEMAS) delete schemas[name]
  return { ...document, paths, components: { ...document.components, schemas } }
}
