/**
 * Twilio's configuration: the account SID and auth token (both encrypted at rest and masked in
 * responses, as the reference masks them; the SID is typed in a visible input, the token in a hidden
 * one), and whether to ask for answering machine detection. The inbound routing key's account id is the
 * account SID.
 */
import { identifierField, present, providerConfig, requiredText, secretField } from "@agentline/telephony-kit/ProviderConfig"
import type { ProviderField } from "@agentline/telephony-kit/TelephonyProvider"
import { Schema } from "effect"

export const TwilioConfig = providerConfig({
  account_sid: requiredText("account_sid"),
  auth_token: requiredText("auth_token"),
  amd_enabled: Schema.optionalWith(Schema.Boolean, { nullable: true, default: () => false })
})
export type TwilioConfig = typeof TwilioConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  identifierField("account_sid", "Account SID", true),
  secretField("auth_token", "Auth token", true),
  {
    name: "amd_enabled",
    label: "Answering machine detection",
    type: "boolean",
    required: false,
    sensitive: false,
    description: "Ask Twilio to detect answering machines; machine answers end as voicemail"
  }
]

export const accountId = (config: TwilioConfig): string | undefined => present(config.account_sid)
