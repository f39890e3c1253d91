/**
 * The eight first-party provider configurations: each provider's credential schema, its field list
 * for the metadata endpoint, and the account id that keys inbound routing, as the reference
 * implementation documents them (exotel as its PR #639 added it).
 *
 * These adapters implement configuration only: storing, validating, masking and routing keys.
 * Calling through them is refused with a clear, non-retryable `TelephonyError` until their calling
 * adapters are written; the simulator (`@agentline/telephony-simulator`) places calls.
 *
 * Decoding rules shared by every schema (carried by the schema itself, so no caller can forget them):
 * - every invalid or missing field is reported at once (`errors: "all"`);
 * - unknown keys are dropped, not rejected: `from_numbers` (numbers are managed through their own
 *   endpoints), `provider`, read-only values a client echoes back from a GET, or keys a newer client
 *   knows. A typo in a required field still fails, as that field is then missing;
 * - strings are trimmed (pasted credentials often carry a newline); required ones must not be empty;
 * - optional strings may be `null` or absent (both mean "not set").
 */
import { Effect, Schema } from "effect"
import { type ProviderField, type TelephonyProvider, TelephonyError } from "./TelephonyProvider.js"

const parseOptions = { errors: "all", onExcessProperty: "ignore" } as const

/** A provider config schema: a struct that reports every failing field and drops unknown keys. */
export const providerConfig = <Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct(fields).annotations({ parseOptions })

/** A required credential: trimmed, non-empty. */
const required = (name: string) => Schema.Trim.pipe(Schema.nonEmptyString({ message: () => `${name} must not be empty` }))

/** An optional string: absent or null means not set. */
const optional = Schema.optionalWith(Schema.Trim, { exact: true, nullable: true })

const httpUrl = (name: string, example: string) =>
  required(name).pipe(Schema.filter((value) => {
    try {
      const url = new URL(value)
      return url.protocol === "http:" || url.protocol === "https:"
    } catch {
      return false
    }
  }, { message: () => `${name} must be an http:// or https:// URL, e.g. ${example}` }))

/** The value of a string field, or undefined when it is absent or empty. */
const present = (value: string | undefined): string | undefined => value === undefined || value === "" ? undefined : value

const text = (name: string, label: string, required: boolean, description?: string): ProviderField => ({
  name,
  label,
  type: "text",
  required,
  sensitive: false,
  ...(description !== undefined ? { description } : {})
})

const secret = (name: string, label: string, required: boolean, description?: string): ProviderField => ({
  name,
  label,
  type: "password",
  required,
  sensitive: true,
  ...(description !== undefined ? { description } : {})
})

// ---------------------------------------------------------------------------------------------- ari

export const AriConfig = providerConfig({
  ari_endpoint: httpUrl("ari_endpoint", "http://pbx.example.com:8088"),
  app_name: required("app_name"),
  app_password: required("app_password"),
  ws_client_name: Schema.optionalWith(Schema.Trim, { nullable: true, default: () => "" })
})
export type AriConfig = typeof AriConfig.Type

export const ariFields: ReadonlyArray<ProviderField> = [
  text("ari_endpoint", "ARI endpoint", true, "Base URL of the Asterisk REST Interface, e.g. http://pbx.example.com:8088"),
  text("app_name", "ARI user", true, "The ARI user name (its section in ari.conf)"),
  secret("app_password", "ARI password", true),
  text(
    "ws_client_name",
    "WebSocket client name",
    false,
    "The websocket_client.conf entry Asterisk uses to stream call audio to this server; without it calls carry no audio"
  )
]

// ---------------------------------------------------------------------------------------- cloudonix

export const CloudonixConfig = providerConfig({
  bearer_token: required("bearer_token"),
  domain_id: required("domain_id"),
  application_name: optional
})
export type CloudonixConfig = typeof CloudonixConfig.Type

export const cloudonixFields: ReadonlyArray<ProviderField> = [
  secret("bearer_token", "API key", true, "Cloudonix domain API key (bearer token)"),
  text("domain_id", "Domain", true, "The Cloudonix domain name; a bare name means <name>.cloudonix.net"),
  text("application_name", "Application name", false, "The Cloudonix voice application calls run through")
]

/** Cloudonix domains are case-insensitive, and bare names live under cloudonix.net. */
export const cloudonixDomain = (domain: string | undefined): string | undefined => {
  const d = (domain ?? "").trim().toLowerCase()
  return d === "" ? undefined : d.includes(".") ? d : `${d}.cloudonix.net`
}

// ------------------------------------------------------------------------------------------- exotel

export const exotelApiBaseUrls = ["https://api.exotel.com", "https://api.in.exotel.com"] as const

export const ExotelConfig = providerConfig({
  account_sid: required("account_sid"),
  api_key: required("api_key"),
  api_token: required("api_token"),
  api_base_url: Schema.optionalWith(Schema.Literal(...exotelApiBaseUrls), { exact: true, nullable: true })
})
export type ExotelConfig = typeof ExotelConfig.Type

export const exotelFields: ReadonlyArray<ProviderField> = [
  secret("account_sid", "Account SID", true),
  secret("api_key", "API key", true),
  secret("api_token", "API token", true),
  {
    name: "api_base_url",
    label: "API region",
    type: "select",
    required: false,
    sensitive: false,
    description: "The cluster of the account: https://api.exotel.com (Singapore, Exotel's default) or https://api.in.exotel.com (Mumbai)",
    options: [
      { value: "https://api.exotel.com", label: "Singapore (api.exotel.com)" },
      { value: "https://api.in.exotel.com", label: "Mumbai (api.in.exotel.com)" }
    ]
  }
]

// -------------------------------------------------------------------------------------------- plivo

export const PlivoConfig = providerConfig({
  auth_id: required("auth_id"),
  auth_token: required("auth_token"),
  application_id: optional
})
export type PlivoConfig = typeof PlivoConfig.Type

export const plivoFields: ReadonlyArray<ProviderField> = [
  secret("auth_id", "Auth ID", true),
  secret("auth_token", "Auth token", true),
  text("application_id", "Application ID", false, "The Plivo application whose answer URL receives inbound calls")
]

// ------------------------------------------------------------------------------------------- telnyx

export const TelnyxConfig = providerConfig({
  api_key: required("api_key"),
  connection_id: optional,
  webhook_public_key: optional
})
export type TelnyxConfig = typeof TelnyxConfig.Type

export const telnyxFields: ReadonlyArray<ProviderField> = [
  secret("api_key", "API key", true),
  text("connection_id", "Connection ID", false, "The Call Control Application id; it also identifies the account for inbound calls"),
  {
    name: "webhook_public_key",
    label: "Webhook public key",
    type: "textarea",
    required: false,
    sensitive: false,
    description: "The account's base64 Ed25519 public key; without it Telnyx webhooks cannot be verified and are rejected"
  }
]

// ------------------------------------------------------------------------------------------- twilio

export const TwilioConfig = providerConfig({
  account_sid: required("account_sid"),
  auth_token: required("auth_token"),
  amd_enabled: Schema.optionalWith(Schema.Boolean, { nullable: true, default: () => false })
})
export type TwilioConfig = typeof TwilioConfig.Type

export const twilioFields: ReadonlyArray<ProviderField> = [
  secret("account_sid", "Account SID", true),
  secret("auth_token", "Auth token", true),
  {
    name: "amd_enabled",
    label: "Answering machine detection",
    type: "boolean",
    required: false,
    sensitive: false,
    description: "Ask Twilio to detect answering machines; machine answers end as voicemail"
  }
]

// -------------------------------------------------------------------------------------------- vobiz

export const VobizConfig = providerConfig({
  auth_id: required("auth_id"),
  auth_token: required("auth_token"),
  application_id: optional
})
export type VobizConfig = typeof VobizConfig.Type

export const vobizFields: ReadonlyArray<ProviderField> = [
  secret("auth_id", "Account ID", true, "The Vobiz account id, e.g. MA_SYQRLN1K"),
  secret("auth_token", "Auth token", true),
  text("application_id", "Application ID", false, "The Vobiz application whose answer URL receives inbound calls")
]

// ------------------------------------------------------------------------------------------- vonage

export const VonageConfig = providerConfig({
  api_key: required("api_key"),
  api_secret: required("api_secret"),
  application_id: required("application_id"),
  private_key: required("private_key"),
  signature_secret: optional
})
export type VonageConfig = typeof VonageConfig.Type

export const vonageFields: ReadonlyArray<ProviderField> = [
  secret("api_key", "API key", true),
  secret("api_secret", "API secret", true),
  text("application_id", "Application ID", true),
  {
    name: "private_key",
    label: "Private key",
    type: "textarea",
    required: true,
    sensitive: true,
    description: "The application's PEM private key (signs API requests)"
  },
  secret("signature_secret", "Signature secret", false, "Verifies signed webhooks; inbound calls need it")
]

// ------------------------------------------------------------------------------------ the providers

/** What a configuration-only adapter is made of. */
export interface ConfigOnlyProviderOptions<Config> {
  readonly name: string
  readonly displayName: string
  readonly configSchema: Schema.Schema<Config, any>
  readonly fields: ReadonlyArray<ProviderField>
  readonly accountId: (config: Config) => string | undefined
}

/**
 * A provider that stores and validates its configuration but cannot call: placing, hanging up and
 * callbacks fail (non-retryable: retrying cannot help), status queries report Unknown (so a crashed
 * attempt is never re-dialed on a guess), inbound setup reports that it must be done by hand.
 */
export const makeConfigOnlyProvider = <Config>(options: ConfigOnlyProviderOptions<Config>): TelephonyProvider<Config> => {
  const { displayName, name } = options
  const refuse = (message: string) => Effect.fail(new TelephonyError({ provider: name, message, retryable: false }))
  const noCalls = `outbound calling through ${name} is not available in this build: the adapter implements configuration only`
  return {
    name,
    displayName,
    configSchema: options.configSchema,
    fields: options.fields,
    accountId: options.accountId,
    placeCall: () => refuse(noCalls),
    hangup: () => refuse(noCalls),
    getCall: () =>
      Effect.succeed({ _tag: "Unknown", reason: `${name} calls cannot be queried in this build: the adapter implements configuration only` }),
    parseCallback: () =>
      refuse(`callbacks from ${name} are not handled in this build: the adapter implements configuration only`),
    // Nothing is ever accepted from a provider this build cannot interpret.
    verifySignature: () => Effect.succeed(false),
    configureInbound: () =>
      Effect.succeed({
        ok: false,
        message: `${displayName}: point the number's inbound webhook at this server in the provider's console; ` +
          `automatic setup is not available in this build`
      }),
    checkOwnership: () => Effect.succeed(undefined)
  }
}

export const ari = makeConfigOnlyProvider({
  name: "ari",
  displayName: "Asterisk ARI",
  configSchema: AriConfig,
  fields: ariFields,
  // One Stasis application per configuration isolates calls; there is no account to route by.
  accountId: () => undefined
})

export const cloudonix = makeConfigOnlyProvider({
  name: "cloudonix",
  displayName: "Cloudonix",
  configSchema: CloudonixConfig,
  fields: cloudonixFields,
  accountId: (config) => cloudonixDomain(config.domain_id)
})

export const exotel = makeConfigOnlyProvider({
  name: "exotel",
  displayName: "Exotel",
  configSchema: ExotelConfig,
  fields: exotelFields,
  accountId: (config) => present(config.account_sid)
})

export const plivo = makeConfigOnlyProvider({
  name: "plivo",
  displayName: "Plivo",
  configSchema: PlivoConfig,
  fields: plivoFields,
  accountId: (config) => present(config.auth_id)
})

export const telnyx = makeConfigOnlyProvider({
  name: "telnyx",
  displayName: "Telnyx",
  configSchema: TelnyxConfig,
  fields: telnyxFields,
  // Telnyx webhooks name the Call Control Application, not the account.
  accountId: (config) => present(config.connection_id)
})

export const twilio = makeConfigOnlyProvider({
  name: "twilio",
  displayName: "Twilio",
  configSchema: TwilioConfig,
  fields: twilioFields,
  accountId: (config) => present(config.account_sid)
})

export const vobiz = makeConfigOnlyProvider({
  name: "vobiz",
  displayName: "Vobiz",
  configSchema: VobizConfig,
  fields: vobizFields,
  accountId: (config) => present(config.auth_id)
})

export const vonage = makeConfigOnlyProvider({
  name: "vonage",
  displayName: "Vonage",
  configSchema: VonageConfig,
  fields: vonageFields,
  accountId: (config) => present(config.api_key)
})

/** The eight first-party providers, in name order. */
export const firstPartyProviders: ReadonlyArray<TelephonyProvider> = [ari, cloudonix, exotel, plivo, telnyx, twilio, vobiz, vonage]
