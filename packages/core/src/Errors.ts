/**
 * The errors every feature shares. Each carries the HTTP status it maps to (read by `@agentline/http`
 * for the OpenAPI document and the response), and a `detail` message written for the person who
 * will read it: what went wrong and, where it helps, what to do instead.
 *
 * The wire body is always `{"detail": ...}` (the reference implementation's shape, so its clients keep
 * working); the `_tag` stays on the Effect side.
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

export class BadRequest extends Schema.TaggedError<BadRequest>()(
  "BadRequest",
  { detail: Schema.String },
  HttpApiSchema.annotations({ status: 400, description: "The request cannot be carried out as sent" })
) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { detail: Schema.String },
  HttpApiSchema.annotations({ status: 401, description: "Missing, invalid, expired or archived credentials" })
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { detail: Schema.String },
  HttpApiSchema.annotations({ status: 403, description: "Valid credentials without the permission needed" })
) {}

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { detail: Schema.String },
  HttpApiSchema.annotations({ status: 404, description: "No such resource in the caller's organization" })
) {}

export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  { detail: Schema.String },
  HttpApiSchema.annotations({ status: 409, description: "The change conflicts with the current state" })
) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { detail: Schema.String },
  HttpApiSchema.annotations({ status: 413, description: "The body is larger than allowed" })
) {}

export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()(
  "TooManyRequests",
  { detail: Schema.String },
  HttpApiSchema.annotations({ status: 429, description: "A rate or concurrency limit was reached" })
) {}

/** One invalid field, in the shape FastAPI gives (the spec's validation error item). */
export const ValidationIssue = Schema.Struct({
  loc: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  msg: Schema.String,
  type: Schema.String,
  input: Schema.Unknown,
  ctx: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  // Agent definition problems also carry the reference implementation's item shape.
  kind: Schema.optional(Schema.Literal("node", "edge", "workflow")),
  id: Schema.optional(Schema.NullOr(Schema.String)),
  field: Schema.optional(Schema.NullOr(Schema.String)),
  message: Schema.optional(Schema.String)
})
export type ValidationIssue = typeof ValidationIssue.Type

/** 422: every field at fault, not only the first. */
export class ValidationError extends Schema.TaggedError<ValidationError>()(
  "ValidationError",
  { detail: Schema.Array(ValidationIssue) },
  HttpApiSchema.annotations({ status: 422, description: "Validation error: every invalid field is listed" })
) {
  static single(loc: ReadonlyArray<string | number>, msg: string, input: unknown, type = "value_error") {
    return new ValidationError({ detail: [{ loc, msg, type, input, ctx: {} }] })
  }
}

