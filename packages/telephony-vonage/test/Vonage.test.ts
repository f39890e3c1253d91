import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { Vonage } from "../src/index.js"

const decode = (input: unknown) => Schema.decodeUnknownEither(Vonage.VonageConfig)(input)

/** The failing fields of a decode, sorted. */
const failures = (input: unknown) => {
  const result = decode(input)
  return Either.isRight(result)
    ? []
    : [...new Set(ParseResult.ArrayFormatter.formatErrorSync(result.left).map((i) => i.path.join(".")))].sort()
}

const complete = {
  api_key: "abcd1234",
  api_secret: "vonage-secret",
  application_id: "aaaaaaaa-bbbb-cccc-dddd-0123456789ab",
  private_key: "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----",
  signature_secret: "sig-secret"
}

describe("vonage configuration", () => {
  it("requires key, secret, application and private key; hides every secret", () => {
    expect(Vonage.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["api_key", "api_secret", "application_id", "private_key"])
    expect(Vonage.fields.filter((f) => f.sensitive).map((f) => f.name)).toEqual(["api_key", "api_secret", "private_key", "signature_secret"])
    expect(failures({})).toEqual(["api_key", "api_secret", "application_id", "private_key"])
    expect(Either.isRight(decode(complete))).toBe(true)
    expect(failures({ ...complete, signature_secret: 12 })).toEqual(["signature_secret"])
    // Answering machine detection is an option, off unless asked for.
    expect(Schema.decodeUnknownSync(Vonage.VonageConfig)(complete).amd_enabled).toBe(false)
    expect(Vonage.fields.find((f) => f.name === "amd_enabled")).toMatchObject({ type: "boolean", required: false, sensitive: false })
  })

  it("routes inbound calls by the API key", () => {
    expect(Vonage.accountId(Schema.decodeUnknownSync(Vonage.VonageConfig)(complete))).toBe("abcd1234")
  })
})

const config = Schema.decodeUnknownSync(Vonage.VonageConfig)(complete)
const NOW = 1_750_000_000_000
const request = (body: unknown, token?: string) => {
  const raw = new TextEncoder().encode(JSON.stringify(body))
  return {
    method: "POST",
    url: "https://calls.example.com/api/v1/telephony/inbound/vonage",
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    rawBody: raw
  }
}
const sign = (body: unknown, secret = "sig-secret") =>
  Vonage.Jwt.signWebhook({ secret, apiKey: "abcd1234", applicationId: complete.application_id, body: JSON.stringify(body), nowMillis: NOW })

describe("vonage webhooks", () => {
  const answer = { to: "14155550100", from: "447700900001", uuid: "call-1", conversation_uuid: "CON-1" }

  it("verifies the signed JWT with the configuration's signature secret; none without one", () => {
    expect(Vonage.Callbacks.isAuthentic(config, request(answer, sign(answer)), NOW)).toBe(true)
    expect(Vonage.Callbacks.isAuthentic(config, request(answer, sign(answer, "forged")), NOW)).toBe(false)
    expect(Vonage.Callbacks.isAuthentic(config, request({ ...answer, to: "1" }, sign(answer)), NOW)).toBe(false)
    expect(Vonage.Callbacks.isAuthentic(config, request(answer), NOW)).toBe(false)
    const { signature_secret: _, ...unsigned } = config
    expect(Vonage.Callbacks.isAuthentic(unsigned, request(answer, sign(answer)), NOW)).toBe(false)
  })

  it("an incoming call's answer request: its account from the signed JWT, numbers in E.164; events are not calls", () => {
    expect(Vonage.Callbacks.inboundCall(request(answer, sign(answer)))).toEqual(
      Either.right({ accountId: "abcd1234", to: "+14155550100", from: "+447700900001", providerCallId: "call-1" })
    )
    expect(Either.isLeft(Vonage.Callbacks.inboundCall(request(answer)))).toBe(true)
    expect(Either.isLeft(Vonage.Callbacks.inboundCall(request({ ...answer, status: "started" }, sign(answer))))).toBe(true)
    expect(Either.isLeft(Vonage.Callbacks.inboundCall(request({ from: "1" }, sign(answer))))).toBe(true)
  })

  it("renders addresses as Vonage endpoints", () => {
    expect(Vonage.Calls.endpointOf("+14155550100")).toEqual({ type: "phone", number: "14155550100" })
    expect(Vonage.Calls.endpointOf("sip:alice@example.com")).toEqual({ type: "sip", uri: "sip:alice@example.com" })
    expect(Vonage.Calls.endpointOf("1001")).toBe(undefined)
  })

  it("points an application's answer URL at this server with signed callbacks, keeping everything else", () => {
    const app = {
      id: "app-1",
      name: "agentline",
      capabilities: {
        voice: { webhooks: { event_url: { address: "https://mine/events", http_method: "POST" } }, signed_callbacks: false },
        rtc: { webhooks: {} }
      },
      keys: { public_key: "PEM" },
      _links: { self: { href: "/v2/applications/app-1" } }
    }
    const put = Vonage.Numbers.pointApplication(app, "https://calls.example.com/in")!
    expect(put).toEqual({
      name: "agentline",
      capabilities: {
        voice: {
          webhooks: { event_url: { address: "https://mine/events", http_method: "POST" }, answer_url: { address: "https://calls.example.com/in", http_method: "POST" } },
          signed_callbacks: true
        },
        rtc: { webhooks: {} }
      },
      keys: { public_key: "PEM" }
    })
    expect(Vonage.Numbers.pointApplication({ ...put, id: "app-1" }, "https://calls.example.com/in")).toBe(undefined)
  })
})
