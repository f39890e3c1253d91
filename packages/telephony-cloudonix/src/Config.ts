/**
 * Cloudonix's configuration: the domain's API key (the bearer token, secret), the domain, and the voice
 * application that receives incoming calls. The inbound routing key's account id is the domain (lower
 * case; a bare name is `<name>.cloudonix.net`), as webhooks name it in `Domain` / `AccountSid`.
 */
import { optionalText, present, providerConfig, requiredText, secretField, textField } from "@agentline/telephony-kit/ProviderConfig"
import type { ProviderField } from "@agentline/telephony-kit/TelephonyProvider"

export const CloudonixConfig = providerConfig({
  bearer_token: requiredText("bearer_token"),
  domain_id: requiredText("domain_id"),
  application_name: optionalText
})
export type CloudonixConfig = typeof CloudonixConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  secretField("bearer_token", "API key", true, "Cloudonix domain API key (bearer token)"),
  textField("domain_id", "Domain", true, "The Cloudonix domain name; a bare name means <name>.cloudonix.net"),
  textField(
    "application_name",
    "Application name",
    false,
    "The Cloudonix voice application that receives incoming calls; needed to bind numbers to an inbound agent"
  )
]

/** Cloudonix domains are case-insensitive, and bare names live under cloudonix.net. */
export const cloudonixDomain = (domain: string | undefined): string | undefined => {
  const d = (domain ?? "").trim().toLowerCase()
  return d === "" ? undefined : d.includes(".") ? d : `${d}.cloudonix.net`
}

export const accountId = (config: CloudonixConfig): string | undefined => cloudonixDomain(present(config.domain_id))
