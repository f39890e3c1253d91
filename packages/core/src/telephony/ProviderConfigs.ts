/**
 * The eight first-party provider configurations (fields, required and sensitive ones as the reference
 * implementation documents). These adapters implement configuration only: storing, validating,
 * masking and inbound routing keys. Placing calls through them is refused with a clear error until
 * their calling adapters are written; the simulator (`@agentline/telephony-simulator`) places calls.
 */
import { Effect, Schema } from "effect"
import { type ProviderField, type TelephonyProvider, TelephonyError } from "./TelephonyProvider.js"

interface FieldSpec extends Omit<ProviderField, "type" | "label"> {
  readonly type?: ProviderField["type"]
  readonly label?: string
  readonly default?: string | boolean
}

const label = (name: string) => name.split("_").map((w) => w[0]!.toUpperCase() + w.slice(1)).join(" ")

const schemaOf = (fields: ReadonlyArray<FieldSpec>) => {
  const struct: Record<string, Schema.Schema.All | Schema.PropertySignature.All> = {}
  for (const f of fields) {
    if (f.type === "boolean") {
      struct[f.name] = Schema.optionalWith(Schema.Boolean, { default: () => (f.default as boolean | undefined) ?? false })
    } else if (f.required) {
      struct[f.name] = Schema.String.pipe(Schema.minLength(1, { message: () => `${f.name} must not be empty` }))
    } else {
      struct[f.name] = Schema.optionalWith(Schema.String, { default: () => (f.default as string | undefined) ?? "" })
    }
  }
  return Schema.Struct(struct as any) as unknown as Schema.Schema<Record<string, any>, Record<string, any>>
}

export const makeConfigOnlyProvider = (
  name: string,
  displayName: string,
  specs: ReadonlyArray<FieldSpec>,
  accountId: (config: Record<string, any>) => string | undefined
): TelephonyProvider<Record<string, any>> => {
  const notAvailable = () =>
    new TelephonyError({
      provider: name,
      message: `outbound calling through ${name} is not available in this build: the adapter implements configuration only`,
      retryable: false
    })
  return {
    name,
    displayName,
    configSchema: schemaOf(specs),
    fields: specs.map(({ default: _, ...f }) => ({ ...f, type: f.type ?? (f.sensitive ? "password" : "text"), label: f.label ?? label(f.name) })),
    accountId,
    placeCall: () => Effect.fail(notAvailable()),
    hangup: () => Effect.fail(notAvailable()),
    getCall: () => Effect.succeed({ _tag: "Unknown", reason: `${name} adapter cannot query calls in this build` }),
    parseCallback: () => Effect.fail(notAvailable()),
    verifySignature: () => Effect.succeed(false),
    configureInbound: () => Effect.succeed({ ok: false, message: `${displayName}: configure the inbound webhook in the provider's console; automatic setup is not available in this build` }),
    checkOwnership: () => Effect.succeed(undefined)
  }
}

const byField = (field: string) => (config: Record<string, any>) => {
  const value = config[field]
  return typeof value === "string" && value !== "" ? value : undefined
}

/** Cloudonix domains are case-insensitive; bare names live under cloudonix.net. */
export const cloudonixDomain = (domain: string) => {
  const d = domain.trim().toLowerCase()
  return d === "" ? undefined : d.includes(".") ? d : `${d}.cloudonix.net`
}

export const firstPartyProviders: ReadonlyArray<TelephonyProvider> = [
  makeConfigOnlyProvider("ari", "Asterisk ARI", [
    { name: "ari_endpoint", required: true, sensitive: false, description: "ARI base URL, e.g. http://pbx:8088" },
    { name: "app_name", required: true, sensitive: false, description: "ARI user (ari.conf section)" },
    { name: "app_password", required: true, sensitive: true },
    { name: "ws_client_name", required: false, sensitive: false, description: "websocket_client.conf entry for media", default: "" }
  ], () => undefined),
  makeConfigOnlyProvider("cloudonix", "Cloudonix", [
    { name: "bearer_token", required: true, sensitive: true },
    { name: "domain_id", required: true, sensitive: false, description: "Cloudonix domain name" },
    { name: "application_name", required: false, sensitive: false }
  ], (c) => cloudonixDomain(String(c.domain_id ?? ""))),
  makeConfigOnlyProvider("exotel", "Exotel", [
    { name: "account_sid", required: true, sensitive: true },
    { name: "api_key", required: true, sensitive: true },
    { name: "api_token", required: true, sensitive: true },
    { name: "api_base_url", required: false, sensitive: false, description: "https://api.exotel.com or https://api.in.exotel.com" }
  ], byField("account_sid")),
  makeConfigOnlyProvider("plivo", "Plivo", [
    { name: "auth_id", required: true, sensitive: true },
    { name: "auth_token", required: true, sensitive: true },
    { name: "application_id", required: false, sensitive: false }
  ], byField("auth_id")),
  makeConfigOnlyProvider("telnyx", "Telnyx", [
    { name: "api_key", required: true, sensitive: true },
    { name: "connection_id", required: false, sensitive: false, description: "Call Control Application id" },
    { name: "webhook_public_key", required: false, sensitive: false, type: "textarea", description: "Ed25519 key for webhook signatures" }
  ], byField("connection_id")),
  makeConfigOnlyProvider("twilio", "Twilio", [
    { name: "account_sid", required: true, sensitive: true },
    { name: "auth_token", required: true, sensitive: true },
    { name: "amd_enabled", required: false, sensitive: false, type: "boolean", default: false }
  ], byField("account_sid")),
  makeConfigOnlyProvider("vobiz", "Vobiz", [
    { name: "auth_id", required: true, sensitive: true },
    { name: "auth_token", required: true, sensitive: true },
    { name: "application_id", required: false, sensitive: false }
  ], byField("auth_id")),
  makeConfigOnlyProvider("vonage", "Vonage", [
    { name: "api_key", required: true, sensitive: true },
    { name: "api_secret", required: true, sensitive: true },
    { name: "application_id", required: true, sensitive: false },
    { name: "private_key", required: true, sensitive: true, type: "textarea", description: "PEM private key of the application" },
    { name: "signature_secret", required: false, sensitive: true }
  ], byField("api_key"))
]
