/**
 * Stored credentials for the requests agents make (the workflow `webhook` node's `credential_uuid`),
 * in the reference's wire shape. The secret part (`credential_data`) is write-only: encrypted at rest,
 * never returned.
 */
import { Schema } from "effect"
import { lengthLimits } from "../Params.js"

export const CredentialType = Schema.Literal("none", "api_key", "bearer_token", "basic_auth", "custom_header")
export type CredentialType = typeof CredentialType.Type

export const Credential = Schema.Struct({
  uuid: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  credential_type: CredentialType,
  created_at: Schema.String,
  updated_at: Schema.NullOr(Schema.String)
}).annotations({ identifier: "Credential" })
export type Credential = typeof Credential.Type

const Name = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "name must not be empty" }),
  Schema.maxLength(255, { message: () => "name must be at most 255 characters" })
).annotations(lengthLimits(1, 255))
const Description = Schema.NullOr(Schema.String.pipe(Schema.maxLength(1000)))
const Data = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * `credential_data` by type: `api_key` `{api_key, header_name? ("X-API-Key")}`, `bearer_token`
 * `{token}`, `basic_auth` `{username, password}`, `custom_header` `{header_name, header_value}`,
 * `none` `{}`. Checked by the server, which names every field at fault.
 */
export const CreateCredentialRequest = Schema.Struct({
  name: Name,
  description: Schema.optionalWith(Description, { default: () => null }),
  credential_type: CredentialType,
  credential_data: Data
})
export type CreateCredentialRequest = typeof CreateCredentialRequest.Type

/** Fields left out (or null) stay as they are; a new type needs its data. */
export const UpdateCredentialRequest = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Name)),
  description: Schema.optional(Description),
  credential_type: Schema.optional(Schema.NullOr(CredentialType)),
  credential_data: Schema.optional(Schema.NullOr(Data))
})
export type UpdateCredentialRequest = typeof UpdateCredentialRequest.Type
