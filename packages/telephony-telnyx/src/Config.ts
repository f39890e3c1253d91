/**
 * Telnyx (Call Control) configuration. Telnyx webhooks name the Call Control Application, not the
 * account, so the inbound routing key's account id is the connection id; without one, inbound calls
 * cannot be routed (and no call can be placed: a dial names its application).
 */
import { optionalText, present, providerConfig, requiredText, secretField, textField } from "@agentline/telephony-kit/ProviderConfig"
import type { ProviderField } from "@agentline/telephony-kit/TelephonyProvider"
import { Schema } from "effect"

export const TelnyxConfig = providerConfig({
  api_key: requiredText("api_key"),
  connection_id: optionalText,
  webhook_public_key: optionalText,
  amd_enabled: Schema.optionalWith(Schema.Boolean, { nullable: true, default: () => false })
})
export type TelnyxConfig = typeof TelnyxConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  secretField("api_key", "API key", true),
  textField(
    "connection_id",
    "Connection ID",
    false,
    "The Call Control Application id: calls are placed through it, and it identifies the account for inbound calls"
  ),
  {
    name: "webhook_public_key",
    label: "Webhook public key",
    type: "textarea",
    required: false,
    sensitive: false,
    description: "The account's base64 Ed25519 public key; without it Telnyx webhooks cannot be verified and are rejected"
  },
  {
    name: "amd_enabled",
    label: "Answering machine detection",
    type: "boolean",
    required: false,
    sensitive: false,
    description: "Ask Telnyx to detect answering machines; machine answers end as voicemail (and are hung up)"
  }
]

/** The inbound routing key's account id: the Call Control Application id. */
export const accountId = (config: TelnyxConfig): string | undefined => present(config.connection_id)
