/** Field lists shaped like real providers' (the providers themselves live in their own packages). */
import { secretField, textField } from "../../src/telephony/ProviderConfig.js"
import type { ProviderField } from "../../src/telephony/TelephonyProvider.js"

export const vonage: { readonly fields: ReadonlyArray<ProviderField> } = {
  fields: [
    secretField("api_key", "API key", true),
    secretField("api_secret", "API secret", true),
    textField("application_id", "Application ID", true),
    { name: "private_key", label: "Private key", type: "textarea", required: true, sensitive: true },
    secretField("signature_secret", "Signature secret", false)
  ]
}

export const ari: { readonly fields: ReadonlyArray<ProviderField> } = {
  fields: [
    textField("ari_endpoint", "ARI endpoint", true),
    textField("app_name", "ARI user", true),
    secretField("app_password", "ARI password", true),
    textField("ws_client_name", "WebSocket client name", false)
  ]
}
