import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck, ParseResult, Schema, SchemaAST } from "effect"
import { cloudonixDomain, firstPartyProviders, makeConfigOnlyProvider } from "../../src/telephony/ProviderConfigs.js"
import { TelephonyError, type TelephonyProvider, TelephonyRegistry } from "../../src/telephony/TelephonyProvider.js"

const provider = (name: string): TelephonyProvider => firstPartyProviders.find((p) => p.name === name)!

/** A complete, valid config per provider (every field set). */
const complete: Record<string, Record<string, unknown>> = {
  ari: { ari_endpoint: "http://pbx.example.com:8088", app_name: "agentline", app_password: "ari-pass", ws_client_name: "media" },
  cloudonix: { bearer_token: "XI0123456789", domain_id: "acme.cloudonix.net", application_name: "voice" },
  exotel: { account_sid: "acme1", api_key: "exo-key", api_token: "exo-token", api_base_url: "https://api.in.exotel.com" },
  plivo: { auth_id: "MAXXXXXXXXXXXXXXXXXX", auth_token: "plivo-token", application_id: "123456" },
  telnyx: { api_key: "KEY0123", connection_id: "1494404757140276705", webhook_public_key: "MCowBQYDK2VwAyEA" },
  twilio: { account_sid: "AC0123456789abcdef0123456789abcdef", auth_token: "twilio-token", amd_enabled: true },
  vobiz: { auth_id: "MA_SYQRLN1K", auth_token: "vobiz-token", application_id: "app-1" },
  vonage: {
    api_key: "abcd1234",
    api_secret: "vonage-secret",
    application_id: "aaaaaaaa-bbbb-cccc-dddd-0123456789ab",
    private_key: "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----",
    signature_secret: "sig-secret"
  }
}

const decode = (p: TelephonyProvider, input: unknown) => Schema.decodeUnknownEither(p.configSchema)(input)

const paths = (error: ParseResult.ParseError) =>
  [...new Set(ParseResult.ArrayFormatter.formatErrorSync(error).map((i) => i.path.join(".")))].sort()

/** The failing fields of a decode (a union member failing several ways counts once), sorted. */
const failures = (p: TelephonyProvider, input: unknown) => {
  const result = decode(p, input)
  return Either.isRight(result) ? [] : paths(result.left)
}

const schemaKeys = (p: TelephonyProvider) =>
  (SchemaAST.encodedAST(p.configSchema.ast) as SchemaAST.TypeLiteral).propertySignatures.map((s) => String(s.name))

describe("the first-party providers", () => {
  it("are the eight, in name order, with unique names, and fit a registry", () => {
    const names = firstPartyProviders.map((p) => p.name)
    expect(names).toEqual(["ari", "cloudonix", "exotel", "plivo", "telnyx", "twilio", "vobiz", "vonage"])
    expect(TelephonyRegistry.make(firstPartyProviders).all.map((p) => p.name)).toEqual(names)
  })

  it.each(firstPartyProviders.map((p) => [p.name, p] as const))("%s: the field list describes exactly the schema's keys", (_, p) => {
    expect(p.fields.map((f) => f.name)).toEqual(schemaKeys(p))
    for (const f of p.fields) {
      expect(f.label.length).toBeGreaterThan(0)
      // Secrets are typed so a form hides them; multi-line secrets (PEM keys) are text areas.
      if (f.sensitive) expect(["password", "textarea"]).toContain(f.type)
    }
  })

  it.each([
    ["ari", ["ari_endpoint", "app_name", "app_password"], ["app_password"]],
    ["cloudonix", ["bearer_token", "domain_id"], ["bearer_token"]],
    ["exotel", ["account_sid", "api_key", "api_token"], ["account_sid", "api_key", "api_token"]],
    ["plivo", ["auth_id", "auth_token"], ["auth_id", "auth_token"]],
    ["telnyx", ["api_key"], ["api_key"]],
    ["twilio", ["account_sid", "auth_token"], ["account_sid", "auth_token"]],
    ["vobiz", ["auth_id", "auth_token"], ["auth_id", "auth_token"]],
    ["vonage", ["api_key", "api_secret", "application_id", "private_key"], ["api_key", "api_secret", "private_key", "signature_secret"]]
  ])("%s requires %j (all reported at once) and hides %j", (name, required, sensitive) => {
    const p = provider(name)
    expect(p.fields.filter((f) => f.required).map((f) => f.name)).toEqual(required)
    expect(p.fields.filter((f) => f.sensitive).map((f) => f.name)).toEqual(sensitive)
    expect(failures(p, {})).toEqual([...required].sort())
    expect(failures(p, Object.fromEntries(required.map((k) => [k, "   "])))).toEqual([...required].sort())
    expect(Either.isRight(decode(p, complete[name]))).toBe(true)
  })

  it("reports every invalid field, whatever options the caller decodes with", () => {
    const twilio = provider("twilio")
    const result = Schema.decodeUnknownEither(twilio.configSchema, { errors: "first", onExcessProperty: "error" })({
      account_sid: 7,
      auth_token: "",
      amd_enabled: "yes",
      surprise: 1
    })
    expect(Either.isLeft(result)).toBe(true)
    const error = (result as Either.Left<ParseResult.ParseError, unknown>).left
    expect(paths(error)).toEqual(["account_sid", "amd_enabled", "auth_token"])
    const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
    expect(issues.find((i) => i.path[0] === "auth_token")!.message).toBe("auth_token must not be empty")
  })

  it("drops unknown keys (from_numbers, provider, read-only echoes) and trims strings", () => {
    const decoded = Schema.decodeUnknownSync(provider("ari").configSchema)({
      provider: "ari",
      from_numbers: ["+14155550100"],
      stasis_app_name: "agentline_0123",
      ari_endpoint: " http://pbx:8088 ",
      app_name: "user\n",
      app_password: "pw"
    })
    expect(decoded).toEqual({ ari_endpoint: "http://pbx:8088", app_name: "user", app_password: "pw", ws_client_name: "" })
  })

  it("applies the documented defaults and treats null optional values as not set", () => {
    expect(Schema.decodeUnknownSync(provider("twilio").configSchema)({ account_sid: "AC1", auth_token: "t" }))
      .toEqual({ account_sid: "AC1", auth_token: "t", amd_enabled: false })
    expect(Schema.decodeUnknownSync(provider("twilio").configSchema)({ account_sid: "AC1", auth_token: "t", amd_enabled: null }))
      .toEqual({ account_sid: "AC1", auth_token: "t", amd_enabled: false })
    expect(Schema.decodeUnknownSync(provider("ari").configSchema)({ ...complete.ari, ws_client_name: null }).ws_client_name).toBe("")
    expect(Schema.decodeUnknownSync(provider("plivo").configSchema)({ auth_id: "MA", auth_token: "t", application_id: null }))
      .toEqual({ auth_id: "MA", auth_token: "t" })
    expect(Schema.decodeUnknownSync(provider("telnyx").configSchema)({ api_key: "k" })).toEqual({ api_key: "k" })
  })

  it.each([
    ["ari", { ...complete.ari, ari_endpoint: "pbx.example.com:8088" }, ["ari_endpoint"]],
    ["ari", { ...complete.ari, ari_endpoint: "ws://pbx:8088" }, ["ari_endpoint"]],
    ["exotel", { ...complete.exotel, api_base_url: "https://evil.example.com" }, ["api_base_url"]],
    ["twilio", { ...complete.twilio, amd_enabled: "true" }, ["amd_enabled"]],
    ["vonage", { ...complete.vonage, signature_secret: 12 }, ["signature_secret"]]
  ])("%s rejects %j", (name, input, paths) => {
    expect(failures(provider(name), input)).toEqual(paths)
  })

  it("keeps the ARI endpoint message actionable", () => {
    const result = decode(provider("ari"), { ...complete.ari, ari_endpoint: "pbx:8088x" })
    const message = ParseResult.ArrayFormatter.formatErrorSync((result as Either.Left<ParseResult.ParseError, unknown>).left)[0]!.message
    expect(message).toContain("http:// or https:// URL")
  })

  it.each(firstPartyProviders.map((p) => [p.name, p] as const))("%s: decoding what was stored gives the same config", (name, p) => {
    const decoded = Schema.decodeUnknownSync(p.configSchema)(complete[name])
    const stored = Schema.encodeSync(p.configSchema)(decoded)
    expect(JSON.parse(JSON.stringify(stored))).toEqual(stored)
    expect(Schema.decodeUnknownSync(p.configSchema)(stored)).toEqual(decoded)
  })

  it("decoding is stable for any credential values (property)", () => {
    const value = FastCheck.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== "")
    for (const p of firstPartyProviders.filter((p) => p.name !== "ari")) {
      FastCheck.assert(
        FastCheck.property(FastCheck.array(value, { minLength: 8, maxLength: 8 }), (values) => {
          const input = Object.fromEntries(p.fields.filter((f) => f.type !== "boolean" && f.type !== "select").map((f, i) => [f.name, values[i]]))
          const decoded = Schema.decodeUnknownSync(p.configSchema)(input)
          for (const v of Object.values(decoded)) if (typeof v === "string") expect(v).toBe(v.trim())
          expect(Schema.decodeUnknownSync(p.configSchema)(Schema.encodeSync(p.configSchema)(decoded))).toEqual(decoded)
        }),
        { numRuns: 50 }
      )
    }
  })
})

describe("account ids (inbound routing keys)", () => {
  it.each([
    ["ari", undefined],
    ["cloudonix", "acme.cloudonix.net"],
    ["exotel", "acme1"],
    ["plivo", "MAXXXXXXXXXXXXXXXXXX"],
    ["telnyx", "1494404757140276705"],
    ["twilio", "AC0123456789abcdef0123456789abcdef"],
    ["vobiz", "MA_SYQRLN1K"],
    ["vonage", "abcd1234"]
  ])("%s → %s", (name, expected) => {
    const p = provider(name)
    expect(p.accountId(Schema.decodeUnknownSync(p.configSchema)(complete[name]))).toBe(expected)
  })

  it("is undefined when the field is empty or absent (no routing key, no conflict check)", () => {
    expect(provider("telnyx").accountId(Schema.decodeUnknownSync(provider("telnyx").configSchema)({ api_key: "k" }))).toBeUndefined()
    expect(provider("telnyx").accountId({ api_key: "k", connection_id: "" })).toBeUndefined()
    expect(provider("twilio").accountId({})).toBeUndefined()
    expect(provider("cloudonix").accountId({})).toBeUndefined()
  })

  it.each([
    ["Acme", "acme.cloudonix.net"],
    ["  ACME  ", "acme.cloudonix.net"],
    ["acme.cloudonix.net", "acme.cloudonix.net"],
    ["Voice.Example.COM", "voice.example.com"],
    ["", undefined],
    ["   ", undefined],
    [undefined, undefined]
  ])("cloudonix domain %j → %j", (input, expected) => {
    expect(cloudonixDomain(input)).toBe(expected)
  })
})

describe("configuration-only adapters", () => {
  const request = { method: "POST", url: "http://127.0.0.1/cb", headers: {}, rawBody: new Uint8Array() }

  for (const p of firstPartyProviders) {
    it.effect(`${p.name} refuses calls clearly and never guesses`, () =>
      Effect.gen(function*() {
        const config = Schema.decodeUnknownSync(p.configSchema)(complete[p.name])
        const placed = yield* Effect.flip(p.placeCall({
          config,
          to: "+14155550100",
          from: undefined,
          correlationId: "1",
          callbackUrl: "http://127.0.0.1/cb",
          onEvent: () => Effect.void
        }))
        expect(placed).toBeInstanceOf(TelephonyError)
        expect(placed).toMatchObject({
          provider: p.name,
          retryable: false,
          message: `outbound calling through ${p.name} is not available in this build: the adapter implements configuration only`
        })
        expect(yield* Effect.flip(p.hangup({ config, providerCallId: "x" }))).toMatchObject({ provider: p.name, retryable: false })
        expect(yield* Effect.flip(p.parseCallback({ config, request }))).toMatchObject({ provider: p.name, retryable: false })
        expect((yield* p.getCall({ config, providerCallId: "x" }))._tag).toBe("Unknown")
        expect(yield* p.verifySignature({ config, request })).toBe(false)
        const sync = yield* p.configureInbound({ config, address: "+14155550100", webhookUrl: "http://127.0.0.1/in" })
        expect(sync.ok).toBe(false)
        expect(sync.message).toContain(p.displayName)
        expect(yield* p.checkOwnership({ config, address: "+14155550100" })).toBeUndefined()
      }))
  }

  it("makeConfigOnlyProvider builds one from any schema", () => {
    const acme = makeConfigOnlyProvider({
      name: "acme",
      displayName: "Acme",
      configSchema: Schema.Struct({ token: Schema.String }),
      fields: [{ name: "token", label: "Token", type: "password", required: true, sensitive: true }],
      accountId: (c) => c.token.slice(0, 2)
    })
    expect(acme.accountId({ token: "abcdef" })).toBe("ab")
    expect(TelephonyRegistry.make([...firstPartyProviders, acme]).get("acme")._tag).toBe("Some")
  })
})
