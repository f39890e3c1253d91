/**
 * Plivo. The configuration (credentials, fields, the inbound routing key — the Auth ID) and the
 * calling adapter, which is the shared Plivo-compatible one (`PlivoCompatible.ts`) in Plivo's dialect:
 * Basic auth on `https://api.plivo.com/v1/Account/{auth_id}/`, V3 signatures over the URL and the
 * parameters, numbers linked with `POST Number/{n}/ {app_id}`, L16 little-endian.
 */
import { identifierField, secretField, textField } from "@agentline/telephony-kit/ProviderConfig"
import type { ProviderField } from "@agentline/telephony-kit/TelephonyProvider"
import type { HttpClient } from "@effect/platform"
import type { Effect } from "effect"
import { amdField, PlivoCompatibleConfig, type PlivoDialect } from "./Dialect.js"
import * as PlivoCompatible from "./PlivoCompatible.js"
import * as Signature from "./Signature.js"

export const PlivoConfig = PlivoCompatibleConfig
export type PlivoConfig = PlivoCompatibleConfig

export const fields: ReadonlyArray<ProviderField> = [
  identifierField("auth_id", "Auth ID", true),
  secretField("auth_token", "Auth token", true),
  textField(
    "application_id",
    "Application ID",
    false,
    "The Plivo application whose answer URL receives inbound calls; when empty, Agentline uses (or creates) the application named Agentline"
  ),
  amdField
]

export const dialect: PlivoDialect = {
  name: "plivo",
  displayName: "Plivo",
  apiUrlVariable: "AGENTLINE_PLIVO_API_URL",
  defaultApiUrl: "https://api.plivo.com",
  apiPrefix: "/v1",
  fields,
  authHeaders: (config) => ({
    authorization: `Basic ${Buffer.from(`${config.auth_id}:${config.auth_token}`).toString("base64")}`
  }),
  signature: Signature.plivoV3,
  numberLink: "plivo",
  requestIsCall: false,
  l16Inbound: "l16le",
  streamIdInPlayAudio: false,
}

export { accountId } from "./Dialect.js"
export * as Callbacks from "./Callbacks.js"
export * as Media from "./Media.js"
export * as Signature from "./Signature.js"
export * as Transfer from "./Transfer.js"

/**
 * The adapter over the context's `HttpClient`; its API base URL is `options.apiUrl`, else
 * `AGENTLINE_PLIVO_API_URL`, else https://api.plivo.com.
 */
export const make = (options: PlivoCompatible.Options = {}): Effect.Effect<PlivoCompatible.PlivoCompatibleProvider, never, HttpClient.HttpClient> =>
  PlivoCompatible.make(dialect, options)
