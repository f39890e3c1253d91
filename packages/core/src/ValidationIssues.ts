/**
 * Turns a Schema parse error into the spec's validation items (`loc`, `msg`, `type`, `input`, `ctx`), one
 * per failing field, with the offending input value. Used by the HTTP layer for request bodies and by
 * services that validate nested, dynamic parts (a provider's config) themselves.
 */
import { ParseResult, type SchemaAST as AST } from "effect"
import type { ValidationIssue } from "@agentline/api/Errors"

const get = (value: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let current = value
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined
    current = Reflect.get(current, key)
  }
  return current
}

/** `undefined` (optional) and `null` (nullable) members of a union: not what a wrong value should have been. */
const isAbsent = (ast: AST.AST) => ast._tag === "UndefinedKeyword" || (ast._tag === "Literal" && ast.literal === null)

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
        const real = members.filter((m) => !(m._tag === "Type" && isAbsent(m.ast)))
        if (real.length === 1) return leaves(real[0]!, path, out)
        return void out.push({ path, issue })
      }
      for (const i of Array.isArray(issue.issues) ? issue.issues : [issue.issues]) leaves(i as ParseResult.ParseIssue, path, out)
      return
    case "Refinement":
      // A failing "From" side means the value was not even of the base type: report the inner failure.
      if (issue.kind === "From") return leaves(issue.issue, path, out)
      // A filter that names the field at fault (`{ path: ["end"], message }`) is reported at that field.
      if (issue.issue._tag === "Pointer") {
        const pointer = issue.issue
        return void out.push({ path: [...path, ...(Array.isArray(pointer.path) ? pointer.path : [pointer.path])], issue })
      }
      return void out.push({ path, issue })
    case "Transformation":
      return issue.kind === "Transformation" ? void out.push({ path, issue }) : leaves(issue.issue, path, out)
    default:
      out.push({ path, issue })
  }
}

/** A literal as FastAPI's messages show it: strings in single quotes (`'prefix'`), others as JSON. */
const showLiteral = (value: unknown): string =>
  typeof value === "string"
    ? `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`
    : typeof value === "bigint" || typeof value === "symbol"
    ? String(value)
    : JSON.stringify(value)

/** `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`: how pydantic lists the allowed values. */
export const expectedLiterals = (values: ReadonlyArray<unknown>): string => {
  const shown = values.map(showLiteral)
  return shown.length <= 1 ? (shown[0] ?? "") : `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}`
}

/**
 * The allowed values when a type admits only literals: a literal, a union of literals (also the
 * discriminator Effect checks first in a union of structs) or an enum. `undefined` for other types.
 */
const literalsOf = (ast: AST.AST): ReadonlyArray<unknown> | undefined => {
  switch (ast._tag) {
    case "Literal":
      return [ast.literal]
    case "Enums":
      return ast.enums.map(([, value]) => value)
    case "Union": {
      const members = ast.types.filter((t) => !isAbsent(t)).map(literalsOf)
      return members.length > 0 && members.every((m) => m !== undefined) ? members.flat() : undefined
    }
    default:
      return undefined
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
    const loc = [location, ...prefix, ...path]
    const actual = get(input, path)
    // A wrong value where only some literals are allowed says which ones (FastAPI's `literal_error`),
    // whether the literals stand alone, in a union, or as the tag of a union of structs.
    const literals = (issue._tag === "Type" || (issue._tag === "Composite" && issue.ast._tag === "Union"))
      ? literalsOf(issue.ast)
      : undefined
    if (literals !== undefined) {
      const expected = expectedLiterals(literals)
      return { loc, msg: `Input should be ${expected}`, type: "literal_error", input: actual, ctx: { expected } }
    }
    if (issue._tag === "Composite" && issue.ast._tag === "Union") {
      const members = issue.ast.types.filter((t) => !isAbsent(t))
      return {
        loc,
        msg: `Expected ${members.map(String).join(" | ")}, actual ${JSON.stringify(actual)}`,
        type: "type_error",
        input: actual,
        ctx: {}
      }
    }
    const type = leafType(issue)
    const message = type === "missing"
      ? "Field required"
      : type === "extra_forbidden"
      ? "Extra inputs are not permitted"
      : ParseResult.ArrayFormatter.formatIssueSync(issue)[0]?.message ?? "Invalid value"
    return {
      loc,
      msg: message,
      type,
      input: type === "missing" ? get(input, path.slice(0, -1)) : actual,
      ctx: {}
    }
  })
}
