/**
 * Request validation errors in the spec's shape: 422 `{"detail": [{loc, msg, type, input, ctx}]}`
 * listing every invalid field of the path, the query and the body together (FastAPI's shape, which
 * the reference implementation's clients read).
 *
 * The platform stops at the first failing part and keeps no input values, so on a decode failure the
 * endpoint is found again and each part is decoded once more with `errors: "all"`.
 */
import type { HttpApi, HttpApiEndpoint } from "@effect/platform"
import { HttpApi as Api } from "@effect/platform"
import type { ValidationIssue } from "@agentline/api/Errors"
import { issuesOf } from "@agentline/core/ValidationIssues"
import { Either, Schema } from "effect"

interface CompiledEndpoint {
  readonly method: string
  readonly pattern: RegExp
  readonly paramNames: ReadonlyArray<string>
  readonly endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
}

const compile = (api: HttpApi.HttpApi.Any): ReadonlyArray<CompiledEndpoint> => {
  const out: Array<CompiledEndpoint> = []
  Api.reflect(api as any, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const paramNames: Array<string> = []
      const source = endpoint.path
        .split("/")
        .map((segment) => {
          if (segment.startsWith(":")) {
            paramNames.push(segment.slice(1).replace(/\?$/, ""))
            return "([^/]+)"
          }
          return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        })
        .join("/")
      out.push({
        method: endpoint.method,
        pattern: new RegExp(`^${source}/?$`),
        paramNames,
        endpoint: endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
      })
    }
  })
  return out
}

/** What a failed request carried, for re-decoding. */
export interface RequestParts {
  readonly method: string
  readonly pathname: string
  readonly query: Readonly<Record<string, string | ReadonlyArray<string>>>
  /** The raw body text, or undefined when the request had none. */
  readonly body: string | undefined
}

const decodeAll = (schema: Schema.Schema.Any, input: unknown) =>
  Schema.decodeUnknownEither(schema as Schema.Schema<unknown, unknown, never>, { errors: "all", onExcessProperty: "ignore" })(input)

export const makeRevalidator = (api: HttpApi.HttpApi.Any) => {
  const endpoints = compile(api)
  return (request: RequestParts): ReadonlyArray<ValidationIssue> => {
    const match = endpoints.find((e) => e.method === request.method && e.pattern.test(request.pathname))
    if (!match) return []
    const issues: Array<ValidationIssue> = []
    const values = match.pattern.exec(request.pathname)!.slice(1)
    const params = Object.fromEntries(match.paramNames.map((name, i) => [name, decodeURIComponent(values[i] ?? "")]))
    const { endpoint } = match
    if (endpoint.pathSchema._tag === "Some") {
      const result = decodeAll(endpoint.pathSchema.value, params)
      if (Either.isLeft(result)) issues.push(...issuesOf("path", result.left, params))
    }
    if (endpoint.urlParamsSchema._tag === "Some") {
      const result = decodeAll(endpoint.urlParamsSchema.value, request.query)
      if (Either.isLeft(result)) issues.push(...issuesOf("query", result.left, request.query))
    }
    if (endpoint.payloadSchema._tag === "Some" && request.method !== "GET") {
      issues.push(...bodyIssues(endpoint.payloadSchema.value, request.body))
    }
    return issues
  }
}

const bodyIssues = (schema: Schema.Schema.Any, body: string | undefined): Array<ValidationIssue> => {
  if (body === undefined || body.trim() === "") {
    return [{ loc: ["body"], msg: "Field required", type: "missing", input: null, ctx: {} }]
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch (error) {
    return [malformedJson(error)]
  }
  const result = decodeAll(schema, parsed)
  return Either.isLeft(result) ? issuesOf("body", result.left, parsed) : []
}

export { issuesOf }

export const malformedJson = (error: unknown): ValidationIssue => ({
  loc: ["body"],
  msg: "JSON decode error",
  type: "json_invalid",
  input: {},
  ctx: { error: error instanceof Error ? error.message : String(error) }
})

