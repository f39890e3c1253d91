/**
 * Vonage's configuration: the account's API key and secret (the Applications and Numbers APIs), the
 * voice application (id, PEM private key: it signs Voice API requests), the signature secret that
 * verifies signed webhooks, and answering machine detection. The inbound routing key's account id is the
 * API key: Vonage's signed webhooks name it (`api_key`).
 */
import { optionalText, present, providerConfig, requiredText, secretField, textField } from "@agentline/telephony-kit/ProviderConfig"
import type { ProviderField } from "@agentline/telephony-kit/TelephonyProvider"
import { Schema } from "effect"

export const VonageConfig = providerConfig({
  api_key: requiredText("api_key"),
  api_secret: requiredText("api_secret"),
  application_id: requiredText("application_id"),
  private_key: requiredText("private_key"),
  signature_secret: optionalText,
  amd_enabled: Schema.optionalWith(Schema.Boolean, { nullable: true, default: () => false })
})
export type VonageConfig = typeof VonageConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  secretField("api_key", "API key", true),
  secretField("api_secret", "API secret", true),
  textField("application_id", "Application ID", true),
  {
    name: "private_key",
    label: "Private key",
    type: "textarea",
    required: true,
    sensitive: true,
    description: "The application's PEM private key (signs API requests)"
  },
  secretField("signature_secret", "Signature secret", false, "Verifies signed webhooks; calls and inbound calls need it"),
  {
    name: "amd_enabled",
    label: "Answering machine detection",
    type: "boolean",
    required: false,
    sensitive: false,
    description: "Ask Vonage to detect answering machines (advanced machine detection, billed by Vonage); machine answers end as voicemail"
  }
]

export const accountId = (config: VonageConfig): string | undefined => present(config.api_key)
