/**
 * Request validation errors in the spec's shape: 422 `{"detail": [{loc, msg, type, input, ctx}]}`
 * listing every invalid field of the path, the query and the body together (FastAPI's shape, which
 * the reference implementation's clients read).
 *
 * The platform stops at the first failing part and keeps no input values, so on a decode failure the
 * endpoint is found again and each part is decoded once more with `errors: "all"`.
 */
import type { ValidationIssue } from "@agentline/api/Errors"
import { issuesOf } from "@agentline/core/ValidationIssues"
import { Either, Schema } from "effect"
import type { ApiRoutes } from "./ApiRoutes.js"

/** What a failed request carried, for re-decoding. */
export interface RequestParts {
  readonly method: string
  readonly pathname: string
  readonly query: Readonly<Record<string, string | ReadonlyArray<string>>>
  /** The raw body text, or undefined when the request had none. */
  readonly body: string | undefined
}

const decodeAll = (schema: Schema.Schema<unknown>, input: unknown) =>
  Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })(input)

export const makeRevalidator = (routes: ApiRoutes) => (request: RequestParts): ReadonlyArray<ValidationIssue> => {
  const match = routes.find(request.method, request.pathname)
  if (match === undefined) return []
  const issues: Array<ValidationIssue> = []
  const { path, payload, urlParams } = match.route
  if (path._tag === "Some") {
    const result = decodeAll(path.value, match.params)
    if (Either.isLeft(result)) issues.push(...issuesOf("path", result.left, match.params))
  }
  if (urlParams._tag === "Some") {
    const result = decodeAll(urlParams.value, request.query)
    if (Either.isLeft(result)) issues.push(...issuesOf("query", result.left, request.query))
  }
  if (payload._tag === "Some" && request.method !== "GET") {
    issues.push(...bodyIssues(payload.value, request.body))
  }
  return issues
}

const bodyIssues = (schema: Schema.Schema<unknown>, body: string | undefined): Array<ValidationIssue> => {
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

