import { TelephonyConfigurationId } from "../Ids.js"
import { Schema } from "effect"
import { lengthLimits } from "../Params.js"

const Name = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "name must be 1 to 64 characters" }),
  Schema.maxLength(64, { message: () => "name must be 1 to 64 characters" })
).annotations(lengthLimits(1, 64))

/** The provider variant object; validated against the provider's own schema by the service. */
export const ProviderConfigInput = Schema.Struct(
  { provider: Schema.String.pipe(Schema.minLength(1)) },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type ProviderConfigInput = typeof ProviderConfigInput.Type

export const TelephonyConfigurationDetail = Schema.Struct({
  id: TelephonyConfigurationId,
  name: Schema.String,
  provider: Schema.String,
  is_default_outbound: Schema.Boolean,
  credentials: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotations({ identifier: "TelephonyConfiguration", description: "A telephony configuration, its sensitive credentials masked" })
export type TelephonyConfigurationDetail = typeof TelephonyConfigurationDetail.Type

export const TelephonyConfigurationListItem = Schema.Struct({
  id: TelephonyConfigurationId,
  name: Schema.String,
  provider: Schema.String,
  is_default_outbound: Schema.Boolean,
  created_at: Schema.String,
  updated_at: Schema.String,
  phone_number_count: Schema.Int
}).annotations({ identifier: "TelephonyConfigurationListItem", description: "A telephony configuration as listed" })
export type TelephonyConfigurationListItem = typeof TelephonyConfigurationListItem.Type

export const CreateTelephonyConfigurationRequest = Schema.Struct({
  name: Name,
  config: ProviderConfigInput,
  is_default_outbound: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
export type CreateTelephonyConfigurationRequest = typeof CreateTelephonyConfigurationRequest.Type

export const UpdateTelephonyConfigurationRequest = Schema.Struct({
  name: Schema.optional(Name),
  config: Schema.optional(ProviderConfigInput)
})
export type UpdateTelephonyConfigurationRequest = typeof UpdateTelephonyConfigurationRequest.Type

export const ProviderMetadata = Schema.Struct({
  providers: Schema.Array(Schema.Struct({
    provider: Schema.String,
    display_name: Schema.String,
    fields: Schema.Array(Schema.Struct({
      name: Schema.String,
      label: Schema.String,
      type: Schema.String,
      required: Schema.Boolean,
      sensitive: Schema.Boolean,
      description: Schema.optional(Schema.String)
    }))
  }))
})
