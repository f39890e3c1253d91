/**
 * Acme's configuration: the account, its API key and the secret that signs its webhooks. Built from the
 * kit's helpers (`providerConfig`: every bad field reported at once, unknown keys dropped, strings
 * trimmed), so it decodes like every other adapter's. The API's address is not here: it is the
 * adapter's (`make({ apiUrl })`), never a tenant's to choose.
 */
import { present, providerConfig, requiredText, secretField, textField } from "@agentline/telephony-kit/ProviderConfig"
import type { ProviderField } from "@agentline/telephony-kit/TelephonyProvider"

export const AcmeConfig = providerConfig({
  account_id: requiredText("account_id"),
  api_key: requiredText("api_key"),
  webhook_secret: requiredText("webhook_secret")
})
export type AcmeConfig = typeof AcmeConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  textField("account_id", "Account ID", true, "Identifies the account in inbound webhooks"),
  secretField("api_key", "API key", true),
  secretField("webhook_secret", "Webhook secret", true, "Signs status callbacks and incoming calls")
]

/** Inbound calls name the account they arrive on: the routing key's account id. */
export const accountId = (config: AcmeConfig): string | undefined => present(config.account_id)
