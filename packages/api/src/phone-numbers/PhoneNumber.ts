import { PhoneNumberId, TelephonyConfigurationId, WorkflowId } from "../Ids.js"
import { Schema } from "effect"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const ProviderSync = Schema.Struct({ ok: Schema.Boolean, message: Schema.String })

export const PhoneNumber = Schema.Struct({
  id: PhoneNumberId,
  telephony_configuration_id: TelephonyConfigurationId,
  address: Schema.String,
  address_normalized: Schema.String,
  address_type: Schema.Literal("pstn", "sip_uri", "sip_extension"),
  is_active: Schema.Boolean,
  is_default_caller_id: Schema.Boolean,
  extra_metadata: JsonObject,
  created_at: Schema.String,
  updated_at: Schema.String,
  country_code: Schema.NullOr(Schema.String),
  label: Schema.NullOr(Schema.String),
  inbound_workflow_id: Schema.NullOr(WorkflowId),
  inbound_workflow_name: Schema.NullOr(Schema.String),
  provider_sync: Schema.NullOr(ProviderSync)
}).annotations({ identifier: "PhoneNumber", description: "A phone number (or SIP address) of a telephony configuration" })
export type PhoneNumber = typeof PhoneNumber.Type

const CountryCode = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z]{2}$/, { message: () => "country_code must be exactly 2 letters (ISO 3166-1), e.g. US" })
)
const Label = Schema.String.pipe(Schema.maxLength(64, { message: () => "label must be at most 64 characters" }))

export const CreatePhoneNumberRequest = Schema.Struct({
  address: Schema.String.pipe(
    Schema.minLength(1, { message: () => "address must be 1 to 255 characters" }),
    Schema.maxLength(255, { message: () => "address must be 1 to 255 characters" })
  ),
  country_code: Schema.optional(Schema.NullOr(CountryCode)),
  label: Schema.optional(Schema.NullOr(Label)),
  inbound_workflow_id: Schema.optional(Schema.NullOr(WorkflowId)),
  is_active: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  is_default_caller_id: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  extra_metadata: Schema.optionalWith(JsonObject, { default: () => ({}) })
})
export type CreatePhoneNumberRequest = typeof CreatePhoneNumberRequest.Type

/** Partial update; `address` is immutable (delete the number and add it again to change it). */
export const UpdatePhoneNumberRequest = Schema.Struct({
  address: Schema.optional(Schema.String),
  country_code: Schema.optional(Schema.NullOr(CountryCode)),
  label: Schema.optional(Schema.NullOr(Label)),
  inbound_workflow_id: Schema.optional(Schema.NullOr(WorkflowId)),
  is_active: Schema.optional(Schema.Boolean),
  extra_metadata: Schema.optional(JsonObject)
})
export type UpdatePhoneNumberRequest = typeof UpdatePhoneNumberRequest.Type
