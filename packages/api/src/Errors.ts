/**
 * The errors of the wire: every failure answers `{"detail": ...}` with one of these statuses (the
 * reference implementation's shape, so its clients keep working).
 *
 * Each error is a `Schema.TaggedError` on the Effect side (a typed client can `catchTag("NotFound")`),
 * but its wire schema is only the body: the `_tag` never travels, so the OpenAPI document does not
 * require one either. `...Response` is the schema the API declares (`addError`), with its status.
 *
 * Domain errors live in `@agentline/core`, named for what went wrong; `@agentline/http` maps each of
 * them to one of these (this package cannot know them: it depends on `effect` and `@effect/platform`
 * only).
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/**
 * The wire schema of an error class: `{detail}` in JSON, the class instance in Effect, with the
 * error's status and description for the OpenAPI document.
 */
const response = <Self extends { readonly detail: Detail }, SelfEncoded, Detail, DetailEncoded>(
  errorClass: Schema.Schema<Self, SelfEncoded> & { new(props: { readonly detail: Detail }): Self },
  detail: Schema.Schema<Detail, DetailEncoded>,
  options: { readonly identifier: string; readonly status: number; readonly description: string }
) =>
  Schema.transform(
    Schema.Struct({ detail }).annotations({ identifier: options.identifier, description: options.description }),
    Schema.typeSchema(errorClass),
    {
      strict: false,
      decode: (body) => new errorClass({ detail: body.detail }),
      encode: (error) => ({ detail: error.detail })
    }
  ).annotations(HttpApiSchema.annotations({ status: options.status, description: options.description }))

export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", { detail: Schema.String }) {}
export const BadRequestResponse = response(BadRequest, Schema.String, {
  identifier: "BadRequest",
  status: 400,
  description: "The request cannot be carried out as sent"
})

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { detail: Schema.String }) {}
export const UnauthorizedResponse = response(Unauthorized, Schema.String, {
  identifier: "Unauthorized",
  status: 401,
  description: "Missing, invalid, expired or archived credentials"
})

export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { detail: Schema.String }) {}
export const ForbiddenResponse = response(Forbidden, Schema.String, {
  identifier: "Forbidden",
  status: 403,
  description: "Valid credentials without the permission needed"
})

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { detail: Schema.String }) {}
export const NotFoundResponse = response(NotFound, Schema.String, {
  identifier: "NotFound",
  status: 404,
  description: "No such resource in the caller's organization"
})

export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", { detail: Schema.String }) {}
export const ConflictResponse = response(Conflict, Schema.String, {
  identifier: "Conflict",
  status: 409,
  description: "The change conflicts with the current state"
})

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", { detail: Schema.String }) {}
export const PayloadTooLargeResponse = response(PayloadTooLarge, Schema.String, {
  identifier: "PayloadTooLarge",
  status: 413,
  description: "The body is larger than allowed"
})

/** 415: a body in another media type than the endpoint reads (answered before the body is read). */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", { detail: Schema.String }) {}
export const UnsupportedMediaTypeResponse = response(UnsupportedMediaType, Schema.String, {
  identifier: "UnsupportedMediaType",
  status: 415,
  description: "The body is not in the media type this endpoint reads"
})

export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", { detail: Schema.String }) {}
export const TooManyRequestsResponse = response(TooManyRequests, Schema.String, {
  identifier: "TooManyRequests",
  status: 429,
  description: "A rate or concurrency limit was reached"
})

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", { detail: Schema.String }) {}
export const ServiceUnavailableResponse = response(ServiceUnavailable, Schema.String, {
  identifier: "ServiceUnavailable",
  status: 503,
  description: "A service this endpoint needs is not configured on this server"
})

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
}).annotations({ identifier: "ValidationIssue" })
export type ValidationIssue = typeof ValidationIssue.Type

/** 422: every field at fault, not only the first. */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  detail: Schema.Array(ValidationIssue)
}) {
  static single(loc: ReadonlyArray<string | number>, msg: string, input: unknown, type = "value_error") {
    return new ValidationError({ detail: [{ loc, msg, type, input, ctx: {} }] })
  }
}
export const ValidationErrorResponse = response(ValidationError, Schema.Array(ValidationIssue), {
  identifier: "ValidationError",
  status: 422,
  description: "Validation error: every invalid field is listed"
})

/**
 * 422 of the agent-definition checks that gate publishing (`POST /workflow/{id}/publish` and
 * `/validate`): `{"detail": {"is_valid": false, "errors": [{kind, id, field, message}]}}`, the
 * reference's shape, so its editor can mark the nodes and edges at fault.
 */
export class DefinitionRejected extends Schema.TaggedError<DefinitionRejected>()("DefinitionRejected", {
  detail: Schema.Struct({
    is_valid: Schema.Literal(false),
    errors: Schema.Array(Schema.Struct({
      kind: Schema.Literal("node", "edge", "workflow"),
      id: Schema.NullOr(Schema.String),
      field: Schema.NullOr(Schema.String),
      message: Schema.String
    }))
  })
}) {}
export const DefinitionRejectedResponse = response(DefinitionRejected, DefinitionRejected.fields.detail, {
  identifier: "DefinitionRejected",
  status: 422,
  description: "The agent definition fails the checks publishing requires: every problem is listed"
})

/** Every wire error, by the status it answers with. */
export type WireError =
  | BadRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | Conflict
  | PayloadTooLarge
  | UnsupportedMediaType
  | TooManyRequests
  | ServiceUnavailable
  | ValidationError
  | DefinitionRejected

export const STATUS: { readonly [Tag in WireError["_tag"]]: number } = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  TooManyRequests: 429,
  ServiceUnavailable: 503,
  ValidationError: 422,
  DefinitionRejected: 422
}
