/**
 * Vobiz (India), a Plivo-compatible carrier. The configuration (credentials, fields, the inbound
 * routing key — the account id) and the calling adapter, which is the shared Plivo-compatible one
 * (`@agentline/telephony-plivo/PlivoCompatible`) in Vobiz's dialect: `X-Auth-ID`/`X-Auth-Token` headers
 * on `https://api.vobiz.ai/api/v1/Account/{auth_id}/`, signatures over the URL without its query
 * (`X-Vobiz-Signature-V3`, or V2), numbers linked with `POST numbers/{+n}/application`, the call's
 * `request_uuid` is its uuid, L16 streamed to us big-endian.
 */
import { identifierField, secretField, textField } from "@agentline/telephony-kit/ProviderConfig"
import type { ProviderField } from "@agentline/telephony-kit/TelephonyProvider"
import { amdField, PlivoCompatibleConfig, type PlivoDialect } from "@agentline/telephony-plivo/Dialect"
import * as PlivoCompatible from "@agentline/telephony-plivo/PlivoCompatible"
import * as Signature from "@agentline/telephony-plivo/Signature"
import type { HttpClient } from "@effect/platform"
import type { Effect } from "effect"

export const VobizConfig = PlivoCompatibleConfig
export type VobizConfig = PlivoCompatibleConfig

export const fields: ReadonlyArray<ProviderField> = [
  identifierField("auth_id", "Account ID", true, "The Vobiz account id, e.g. MA_SYQRLN1K"),
  secretField("auth_token", "Auth token", true),
  textField(
    "application_id",
    "Application ID",
    false,
    "The Vobiz application whose answer URL receives inbound calls; when empty, Agentline uses (or creates) the application named Agentline"
  ),
  amdField
]

export const dialect: PlivoDialect = {
  name: "vobiz",
  displayName: "Vobiz",
  apiUrlVariable: "AGENTLINE_VOBIZ_API_URL",
  defaultApiUrl: "https://api.vobiz.ai",
  apiPrefix: "/api/v1",
  fields,
  authHeaders: (config) => ({ "x-auth-id": config.auth_id, "x-auth-token": config.auth_token }),
  signature: Signature.vobiz,
  numberLink: "vobiz",
  requestIsCall: true,
  l16Inbound: "l16be",
  streamIdInPlayAudio: true
}

export { accountId } from "@agentline/telephony-plivo/Dialect"

/**
 * The adapter over the context's `HttpClient`; its API base URL is `options.apiUrl`, else
 * `AGENTLINE_VOBIZ_API_URL`, else https://api.vobiz.ai.
 */
export const make = (options: PlivoCompatible.Options = {}): Effect.Effect<PlivoCompatible.PlivoCompatibleProvider, never, HttpClient.HttpClient> =>
  PlivoCompatible.make(dialect, options)
