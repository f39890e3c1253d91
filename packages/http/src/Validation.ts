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
import type { ValidationIssue } from "@agentline/core/Errors"
import { Either, ParseResult, Schema } from "effect"

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

const get = (value: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let current = value
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined
    current = (current as any)[key as any]
  }
  return current
}

const leafType = (issue: ParseResult.ParseIssue): string => {
  switch (issue._tag) {
    case "Missing":
      return "missing"
    case "Unexpected":
      return "extra_forbidden"
    case "Type":
      return "type_error"
    default:
      return "value_error"
  }
}

/** The failing leaves of a parse issue tree, each with its path from the root. */
const leaves = (
  issue: ParseResult.ParseIssue,
  path: ReadonlyArray<PropertyKey>,
  out: Array<{ path: ReadonlyArray<PropertyKey>; issue: ParseResult.ParseIssue }>
): void => {
  switch (issue._tag) {
    case "Pointer":
      return leaves(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])], out)
    case "Composite":
      // A union that failed as a whole is one problem with the field, not one per member.
      if (issue.ast._tag === "Union") return void out.push({ path, issue })
      for (const i of Array.isArray(issue.issues) ? issue.issues : [issue.issues]) leaves(i as ParseResult.ParseIssue, path, out)
      return
    case "Refinement":
      // A failing "From" side means the value was not even of the base type: report the inner failure.
      return issue.kind === "From" ? leaves(issue.issue, path, out) : void out.push({ path, issue })
    case "Transformation":
      return issue.kind === "Transformation" ? void out.push({ path, issue }) : leaves(issue.issue, path, out)
    default:
      out.push({ path, issue })
  }
}

/** Flattens a parse error into one item per failing leaf, with the offending input value. */
export const issuesOf = (
  location: "path" | "query" | "body",
  error: ParseResult.ParseError,
  input: unknown
): Array<ValidationIssue> => {
  const found: Array<{ path: ReadonlyArray<PropertyKey>; issue: ParseResult.ParseIssue }> = []
  leaves(error.issue, [], found)
  return found.map(({ issue, path: rawPath }) => {
    const path = rawPath.map((p) => (typeof p === "symbol" ? String(p) : p)) as Array<string | number>
    if (issue._tag === "Composite" && issue.ast._tag === "Union") {
      const members = issue.ast.types.filter((t) => t._tag !== "UndefinedKeyword")
      const literals = members.every((t) => t._tag === "Literal")
      const actual = get(input, path)
      return {
        loc: [location, ...path],
        msg: literals
          ? `Input should be ${members.map((t) => JSON.stringify((t as any).literal)).join(" or ")}`
          : `Expected ${members.map(String).join(" | ")}, actual ${JSON.stringify(actual)}`,
        type: literals ? "literal_error" : "type_error",
        input: actual,
        ctx: literals ? { expected: members.map((t) => (t as any).literal) } : {}
      }
    }
    const type = leafType(issue)
    const message = type === "missing"
      ? "Field required"
      : type === "extra_forbidden"
      ? "Extra inputs are not permitted"
      : ParseResult.ArrayFormatter.formatIssueSync(issue)[0]?.message ?? "Invalid value"
    return {
      loc: [location, ...path],
      msg: message,
      type,
      input: type === "missing" ? get(input, path.slice(0, -1)) : get(input, path),
      ctx: {}
    }
  })
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

export const malformedJson = (error: unknown): ValidationIssue => ({
  loc: ["body"],
  msg: "JSON decode error",
  type: "json_invalid",
  input: {},
  ctx: { error: error instanceof Error ? error.message : String(error) }
})

