/** Cloudonix: configuration. The inbound routing key's account id is the domain (webhooks name it). */
import { optionalText, providerConfig, requiredText, secretField, textField } from "@agentline/core/telephony/ProviderConfig"
import type { ProviderField, TelephonyProvider } from "@agentline/core/telephony/TelephonyProvider"

export const CloudonixConfig = providerConfig({
  bearer_token: requiredText("bearer_token"),
  domain_id: requiredText("domain_id"),
  application_name: optionalText
})
export type CloudonixConfig = typeof CloudonixConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  secretField("bearer_token", "API key", true, "Cloudonix domain API key (bearer token)"),
  textField("domain_id", "Domain", true, "The Cloudonix domain name; a bare name means <name>.cloudonix.net"),
  textField("application_name", "Application name", false, "The Cloudonix voice application calls run through")
]

/** Cloudonix domains are case-insensitive, and bare names live under cloudonix.net. */
export const cloudonixDomain = (domain: string | undefined): string | undefined => {
  const d = (domain ?? "").trim().toLowerCase()
  return d === "" ? undefined : d.includes(".") ? d : `${d}.cloudonix.net`
}

export const provider: TelephonyProvider<CloudonixConfig> = {
  name: "cloudonix",
  displayName: "Cloudonix",
  configSchema: CloudonixConfig,
  fields,
  accountId: (config) => cloudonixDomain(config.domain_id)
}
