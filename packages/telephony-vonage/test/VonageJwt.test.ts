import { describe, expect, it } from "@effect/vitest"
import * as Crypto from "node:crypto"
import { Vonage } from "../src/index.js"

const NOW = 1_750_000_000_000
const secret = "signature-secret-0123"
const body = new TextEncoder().encode(JSON.stringify({ uuid: "u", status: "answered" }))
const signed = (overrides: Partial<Parameters<typeof Vonage.Jwt.signWebhook>[0]> = {}) =>
  Vonage.Jwt.signWebhook({ secret, apiKey: "abcd1234", applicationId: "app-1", body, nowMillis: NOW, ...overrides })
const verify = (token: string | undefined, overrides: Partial<Parameters<typeof Vonage.Jwt.verifyWebhook>[0]> = {}) =>
  Vonage.Jwt.verifyWebhook({ token, secret, apiKey: "abcd1234", applicationId: "app-1", body, nowMillis: NOW, ...overrides })

describe("Vonage signed webhooks", () => {
  it("a token Vonage signed for this account and body verifies", () => {
    expect(verify(signed())).toBe(true)
    expect(Vonage.Jwt.decode(signed())?.claims).toMatchObject({ iss: "Vonage", api_key: "abcd1234", payload_hash: Vonage.Jwt.payloadHash(body) })
  })

  it("refuses another secret, another account or application, another body, a stale token, none at all", () => {
    expect(verify(signed({ secret: "another-secret" }))).toBe(false)
    expect(verify(signed({ apiKey: "other" }))).toBe(false)
    expect(verify(signed({ applicationId: "app-2" }))).toBe(false)
    expect(verify(signed({ body: "{}" }))).toBe(false)
    expect(verify(signed(), { nowMillis: NOW + (Vonage.Jwt.WEBHOOK_MAX_AGE_SECONDS + 1) * 1000 })).toBe(false)
    expect(verify(signed(), { nowMillis: NOW + 60_000 })).toBe(true)
    expect(verify(undefined)).toBe(false)
    expect(verify("not.a.jwt")).toBe(false)
    expect(verify(signed(), { secret: "" })).toBe(false)
  })

  it("refuses a token whose algorithm is not HS256 (no `none`)", () => {
    const [, claims] = signed().split(".")
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${claims}.`
    expect(verify(none)).toBe(false)
  })

  it("reads the bearer token of an Authorization header", () => {
    expect(Vonage.Jwt.bearer("Bearer abc.def.ghi")).toBe("abc.def.ghi")
    expect(Vonage.Jwt.bearer("Basic abc")).toBe(undefined)
    expect(Vonage.Jwt.bearer(undefined)).toBe(undefined)
  })
})

describe("Vonage application JWT", () => {
  it("is RS256 over the application's claims, verifiable with its public key", () => {
    const { privateKey, publicKey } = Crypto.generateKeyPairSync("rsa", { modulusLength: 2048 })
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString()
    const token = Vonage.Jwt.applicationToken({ applicationId: "app-1", privateKey: pem, nowMillis: NOW })
    const jwt = Vonage.Jwt.decode(token)!
    expect(jwt.header).toEqual({ alg: "RS256", typ: "JWT" })
    expect(jwt.claims).toMatchObject({ application_id: "app-1", iat: NOW / 1000, exp: NOW / 1000 + Vonage.Jwt.APPLICATION_TOKEN_SECONDS })
    expect(typeof jwt.claims.jti).toBe("string")
    expect(Crypto.verify("sha256", Buffer.from(jwt.signing), publicKey, jwt.signature)).toBe(true)
    // Each token is unique (jti), and a key pasted with `\n` escapes still signs.
    expect(Vonage.Jwt.decode(Vonage.Jwt.applicationToken({ applicationId: "app-1", privateKey: pem.replace(/\n/g, "\\n"), nowMillis: NOW }))!.claims.jti)
      .not.toBe(jwt.claims.jti)
  })
})
