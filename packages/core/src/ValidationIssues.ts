/**
 * Turns a Schema parse error into the spec's validation items (`loc`, `msg`, `type`, `input`, `ctx`), one
 * per failing field, with the offending input value. Used by the HTTP layer for request bodies and by
 * services that validate nested, dynamic parts (a provider's config) themselves.
 */
import { ParseResult } from "effect"
import type { ValidationIssue } from "./Errors.js"

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
      if (issue.ast._tag === "Union") {
        // `X | undefined` (optional) and `X | null`: the problem is with X, so report X's leaves.
        const members = (Array.isArray(issue.issues) ? issue.issues : [issue.issues]) as ReadonlyArray<ParseResult.ParseIssue>
        const real = members.filter((m) =>
          !(m._tag === "Type" && (m.ast._tag === "UndefinedKeyword" || (m.ast._tag === "Literal" && m.ast.literal === null)))
        )
        if (real.length === 1) return leaves(real[0]!, path, out)
        return void out.push({ path, issue })
      }
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
  input: unknown,
  prefix: ReadonlyArray<string | number> = []
): Array<ValidationIssue> => {
  const found: Array<{ path: ReadonlyArray<PropertyKey>; issue: ParseResult.ParseIssue }> = []
  leaves(error.issue, [], found)
  return found.map(({ issue, path: rawPath }) => {
    const path = rawPath.map((p) => (typeof p === "symbol" ? String(p) : p)) as Array<string | number>
    if (issue._tag === "Composite" && issue.ast._tag === "Union") {
      const members = issue.ast.types.filter((t) => t._tag !== "UndefinedKeyword" && !(t._tag === "Literal" && t.literal === null))
      const literals = members.every((t) => t._tag === "Literal")
      const actual = get(input, path)
      return {
        loc: [location, ...prefix, ...path],
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
      loc: [location, ...prefix, ...path],
      msg: message,
      type,
      input: type === "missing" ? get(input, path.slice(0, -1)) : get(input, path),
      ctx: {}
    }
  })
}

