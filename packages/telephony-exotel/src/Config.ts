/**
 * Exotel's configuration: the account SID, API key and token (all secret: the reference masks them) and
 * the account's region (one of Exotel's two API hosts). The inbound routing key's account id is the
 * account SID.
 */
import { identifierField, present, providerConfig, requiredText, secretField } from "@agentline/telephony-kit/ProviderConfig"
import type { ProviderField } from "@agentline/telephony-kit/TelephonyProvider"
import { Option, Schema } from "effect"

/** Exotel's regional API hosts: Singapore (the default cluster) and Mumbai. */
export const apiBaseUrls = ["https://api.exotel.com", "https://api.in.exotel.com"] as const

/** A pasted host, trimmed and without a trailing slash. */
const normalizedHost = (value: string) => value.trim().replace(/\/+$/, "")
const isRegionalHost = (value: string) => (apiBaseUrls as ReadonlyArray<string>).includes(normalizedHost(value))
const regionMessage = () =>
  `api_base_url must be one of Exotel's regional API hosts: ${apiBaseUrls[0]} (Singapore) or ${apiBaseUrls[1]} (Mumbai)`

/** One of the two hosts (the OpenAPI document lists them as an enum). */
const ApiBaseUrl = Schema.String.pipe(Schema.filter(isRegionalHost, { message: regionMessage, jsonSchema: { enum: [...apiBaseUrls] } }))

/**
 * What a request may send: a host, or null for "not set". Checked as one value so that a wrong host
 * gets one clear message (not one per member of a union); any other host is refused — the adapter
 * sends the account's API key and token there.
 */
const ApiBaseUrlInput = Schema.NullOr(Schema.String).pipe(
  Schema.filter((value) => value === null || isRegionalHost(value), { message: regionMessage })
)

export const ExotelConfig = providerConfig({
  account_sid: requiredText("account_sid"),
  api_key: requiredText("api_key"),
  api_token: requiredText("api_token"),
  api_base_url: Schema.optionalToOptional(ApiBaseUrlInput, ApiBaseUrl, {
    decode: (value) => Option.map(Option.filter(value, (v): v is string => v !== null), normalizedHost),
    encode: (value) => value
  })
})
export type ExotelConfig = typeof ExotelConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  identifierField("account_sid", "Account SID", true),
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

export const accountId = (config: ExotelConfig): string | undefined => present(config.account_sid)
