/**
 * Asterisk ARI: configuration. ARI has no account: one Stasis application per configuration isolates
 * calls, so the inbound routing key's account id is the ARI endpoint plus the ARI user (two
 * configurations of one Asterisk box with different users are different accounts; the same
 * box and user in two organizations is the same one, and its numbers must not be claimed twice).
 */
import { httpUrl, providerConfig, requiredText, secretField, textField } from "@agentline/telephony-kit/ProviderConfig"
import type { ProviderField, TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { Schema } from "effect"
import { validDialTemplate } from "./Calls.js"

export const AriConfig = providerConfig({
  ari_endpoint: httpUrl("ari_endpoint", "http://pbx.example.com:8088"),
  app_name: requiredText("app_name"),
  app_password: requiredText("app_password"),
  ws_client_name: Schema.optionalWith(Schema.Trim, { nullable: true, default: () => "" }),
  dial_string: Schema.optionalWith(
    Schema.Trim.pipe(Schema.filter((t) => t === "" || validDialTemplate(t), {
      message: () => "dial_string must be a channel technology, a slash and a resource naming {number} or {digits}, e.g. PJSIP/{number}@trunk or Local/{digits}@from-internal"
    })),
    { nullable: true, default: () => "" }
  )
})
export type AriConfig = typeof AriConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  textField("ari_endpoint", "ARI endpoint", true, "Base URL of the Asterisk REST Interface, e.g. http://pbx.example.com:8088"),
  textField("app_name", "ARI user", true, "The ARI user name (its section in ari.conf)"),
  secretField("app_password", "ARI password", true),
  textField(
    "ws_client_name",
    "WebSocket client name",
    false,
    "The websocket_client.conf entry Asterisk uses to stream call audio to this server; without it calls carry no audio"
  ),
  textField(
    "dial_string",
    "Dial string",
    false,
    "How numbers are dialed, with {number} (+14155550100) or {digits} (14155550100): PJSIP/{number}@trunk, Local/{digits}@from-internal (FreePBX outbound routes). Default PJSIP/{number}"
  )
]

/**
 * The endpoint as one Asterisk box has one spelling: scheme and host lower-cased, the default port,
 * query, fragment and trailing slashes dropped.
 */
export const normalizeEndpoint = (endpoint: string): string => {
  const url = new URL(endpoint.trim())
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`
}

/** `<normalized endpoint>#<ARI user>`: `#` cannot occur in the normalized endpoint. */
export const accountId = (config: Pick<AriConfig, "ari_endpoint" | "app_name">): string =>
  `${normalizeEndpoint(config.ari_endpoint)}#${config.app_name}`

/** The configuration part of the adapter (the calling parts are added by `AriAdapter.make`). */
export const configuration: TelephonyProvider<AriConfig> = {
  name: "ari",
  displayName: "Asterisk ARI",
  configSchema: AriConfig,
  fields,
  accountId
}
