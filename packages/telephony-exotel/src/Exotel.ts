/** Exotel: configuration. The inbound routing key's account id is the account SID. */
import { present, providerConfig, requiredText, secretField } from "@agentline/core/telephony/ProviderConfig"
import type { ProviderField, TelephonyProvider } from "@agentline/core/telephony/TelephonyProvider"
import { Schema } from "effect"

export const apiBaseUrls = ["https://api.exotel.com", "https://api.in.exotel.com"] as const

export const ExotelConfig = providerConfig({
  account_sid: requiredText("account_sid"),
  api_key: requiredText("api_key"),
  api_token: requiredText("api_token"),
  api_base_url: Schema.optionalWith(Schema.Literal(...apiBaseUrls), { exact: true, nullable: true })
})
export type ExotelConfig = typeof ExotelConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  secretField("account_sid", "Account SID", true),
  secretField("api_key", "API key", true),
  secretField("api_token", "API token", true),
  {
    name: "api_base_url",
    label: "API region",
    type: "select",
    required: false,
    sensitive: false,
    description: "The cluster of the account: https://api.exotel.com (Singapore, Exotel's default) or https://api.in.exotel.com (Mumbai)",
    options: [
      { value: "https://api.exotel.com", label: "Singapore (api.exotel.com)" },
      { value: "https://api.in.exotel.com", label: "Mumbai (api.in.exotel.com)" }
    ]
  }
]

export const provider: TelephonyProvider<ExotelConfig> = {
  name: "exotel",
  displayName: "Exotel",
  configSchema: ExotelConfig,
  fields,
  accountId: (config) => present(config.account_sid)
}
