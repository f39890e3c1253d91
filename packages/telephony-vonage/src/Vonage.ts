/** Vonage (Voice API): configuration. The inbound routing key's account id is the API key (signed webhooks carry it). */
import { optionalText, present, providerConfig, requiredText, secretField, textField } from "@agentline/core/telephony/ProviderConfig"
import type { ProviderField, TelephonyProvider } from "@agentline/core/telephony/TelephonyProvider"

export const VonageConfig = providerConfig({
  api_key: requiredText("api_key"),
  api_secret: requiredText("api_secret"),
  application_id: requiredText("application_id"),
  private_key: requiredText("private_key"),
  signature_secret: optionalText
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
  secretField("signature_secret", "Signature secret", false, "Verifies signed webhooks; inbound calls need it")
]

export const provider: TelephonyProvider<VonageConfig> = {
  name: "vonage",
  displayName: "Vonage",
  configSchema: VonageConfig,
  fields,
  accountId: (config) => present(config.api_key)
}
