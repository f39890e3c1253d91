/**
 * What a failed client call means for a person: the typed client fails with the API's wire errors
 * (`{detail}` bodies decoded into tagged errors), with transport errors (`RequestError`, `ResponseError`)
 * or with a `ParseError` when a body does not match its schema. The client checks a request's payload
 * against the API's own schemas before sending it, so a form's invalid fields come back as a
 * `ParseError` with the same messages the server would give. Pure, so it is tested without a browser.
 */
import { ParseResult } from "effect"
export interface FieldProblem {
  /** The field's path as the API reports it, without the leading "body"/"query"/"path" part. */
  readonly field: string
  readonly message: string
}

export interface ProblemDescription {
  readonly kind:
    | "unauthorized"
    | "password-change-required"
    | "forbidden"
    | "validation"
    | "not-found"
    | "conflict"
    | "rate-limited"
    | "bad-request"
    | "network"
    | "unexpected"
  readonly message: string
  readonly fields: ReadonlyArray<FieldProblem>
}

const LOCATION_PARTS = new Set(["body", "query", "path", "header"])

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

const fieldOf = (loc: unknown): string => {
  if (!Array.isArray(loc)) return ""
  const parts = loc.filter((part, index) => !(index === 0 && typeof part === "string" && LOCATION_PARTS.has(part)))
  return parts.map(String).join(".")
}

export const describeProblem = (error: unknown): ProblemDescription => {
  const tag = isRecord(error) && typeof error._tag === "string" ? error._tag : undefined
  const detail = isRecord(error) ? error.detail : undefined
  const text = typeof detail === "string" ? detail : undefined
  switch (tag) {
    case "Unauthorized":
      return { kind: "unauthorized", message: text ?? "You are not logged in.", fields: [] }
    case "Forbidden":
      return text === "password_change_required"
        ? { kind: "password-change-required", message: "Change your temporary password to continue.", fields: [] }
        : { kind: "forbidden", message: text ?? "You do not have permission to do this.", fields: [] }
    case "ValidationError": {
      const issues = Array.isArray(detail) ? detail : []
      const fields = issues.map((issue): FieldProblem => ({
        field: isRecord(issue) ? fieldOf(issue.loc) : "",
        message: isRecord(issue) && typeof issue.msg === "string"
          ? issue.msg
          : isRecord(issue) && typeof issue.message === "string"
          ? issue.message
          : "is invalid"
      }))
      return {
        kind: "validation",
        message: fields.length === 1 ? "One field needs fixing." : `${fields.length} fields need fixing.`,
        fields
      }
    }
    case "DefinitionRejected": {
      // The checks of publishing: every problem with the node or edge it belongs to.
      const errors = isRecord(detail) && Array.isArray(detail.errors) ? detail.errors : []
      const fields = errors.map((problem): FieldProblem => {
        const where = isRecord(problem) && problem.kind !== "workflow" && typeof problem.id === "string"
          ? `${String(problem.kind)} ${problem.id}${typeof problem.field === "string" && problem.field !== "" ? `.${problem.field}` : ""}`
          : ""
        return { field: where, message: isRecord(problem) && typeof problem.message === "string" ? problem.message : "is invalid" }
      })
      return {
        kind: "validation",
        message: fields.length === 1 ? "One problem must be fixed first." : `${fields.length} problems must be fixed first.`,
        fields
      }
    }
    case "NotFound":
      return { kind: "not-found", message: text ?? "Not found.", fields: [] }
    case "Conflict":
      return { kind: "conflict", message: text ?? "This conflicts with the current state.", fields: [] }
    case "TooManyRequests":
      return { kind: "rate-limited", message: text ?? "Too many requests; try again shortly.", fields: [] }
    case "BadRequest":
    case "PayloadTooLarge":
      return { kind: "bad-request", message: text ?? "The request was refused.", fields: [] }
    case "ParseError": {
      const fields = ParseResult.ArrayFormatter.formatErrorSync(error as unknown as ParseResult.ParseError).map((issue) => ({
        field: issue.path.map(String).join("."),
        message: issue.message
      }))
      return {
        kind: "validation",
        message: fields.length === 1 ? "One field needs fixing." : `${fields.length} fields need fixing.`,
        fields
      }
    }
    case "RequestError":
      return { kind: "network", message: "The server could not be reached. Check your connection and try again.", fields: [] }
    case "ResponseError": {
      const status = isRecord(error) && isRecord(error.response) && typeof error.response.status === "number"
        ? error.response.status
        : undefined
      return {
        kind: "unexpected",
        message: `The server answered unexpectedly${status === undefined ? "" : ` (HTTP ${status})`}.`,
        fields: []
      }
    }
    default:
      return {
        kind: "unexpected",
        message: isRecord(error) && typeof error.message === "string" && error.message !== ""
          ? `Something went wrong: ${error.message}`
          : "Something went wrong.",
        fields: []
      }
  }
}
