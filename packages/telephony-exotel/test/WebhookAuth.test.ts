import type { WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { Exotel } from "../src/index.js"

const account = { account_sid: "acme1", api_token: "exo-token-1" }
const request = (url: string, headers: Record<string, string> = {}): WebhookRequest => ({ method: "POST", url, headers, rawBody: new Uint8Array() })
const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` })

const CALLBACK = "https://agentline.example/api/v1/telephony/callbacks/exotel/7"
const INBOUND = "https://agentline.example/api/v1/telephony/inbound/exotel"

describe("exotel webhook tokens", () => {
  it("a status callback URL carries its token in the query, and only that URL's callbacks verify", () => {
    const url = Exotel.Signature.withToken(account, CALLBACK)
    expect(url).toMatch(/^https:\/\/agentline\.example\/api\/v1\/telephony\/callbacks\/exotel\/7\?agentline_token=[A-Za-z0-9_-]{43}$/)
    expect(Exotel.Signature.isAuthentic(account, request(url))).toBe(true)
    // Another attempt's path, another account, a changed API token, no token: refused.
    expect(Exotel.Signature.isAuthentic(account, request(url.replace("/exotel/7?", "/exotel/8?")))).toBe(false)
    expect(Exotel.Signature.isAuthentic({ ...account, account_sid: "acme2" }, request(url))).toBe(false)
    expect(Exotel.Signature.isAuthentic({ ...account, api_token: "rotated" }, request(url))).toBe(false)
    expect(Exotel.Signature.isAuthentic(account, request(CALLBACK))).toBe(false)
    expect(Exotel.Signature.isAuthentic(account, request(`${CALLBACK}?agentline_token=`))).toBe(false)
  })

  it("the token is neither the API token nor derived from anything but the account and the path", () => {
    const token = Exotel.Signature.tokenFor(account, CALLBACK)
    expect(token).not.toContain(account.api_token)
    expect(Exotel.Signature.tokenFor(account, `${CALLBACK}?x=1`)).toBe(token)
  })

  it("the inbound URL carries the account SID and its token as HTTP Basic credentials", () => {
    const flow = new URL(Exotel.Signature.inboundFlowUrl(account, INBOUND))
    expect(flow.username).toBe("acme1")
    expect(flow.password).toBe(Exotel.Signature.tokenFor(account, INBOUND))
    expect(`${flow.origin}${flow.pathname}`).toBe(INBOUND)
    // As Exotel sends it: the credentials in the header, the call's details in the query.
    const asked = `${INBOUND}?CallSid=c1&CallFrom=%2B919876543210&CallTo=08047491899`
    expect(Exotel.Signature.isAuthentic(account, request(asked, basic("acme1", flow.password)))).toBe(true)
    expect(Exotel.Signature.isAuthentic(account, request(asked, basic("acme1", "guess")))).toBe(false)
    expect(Exotel.Signature.isAuthentic(account, request(asked, basic("other", flow.password)))).toBe(false)
    expect(Exotel.Signature.isAuthentic(account, request(asked))).toBe(false)
    expect(Exotel.Signature.isAuthentic(account, request(asked, { authorization: "Bearer x" }))).toBe(false)
    // A flow that cannot send Basic credentials may put the token in the query instead.
    expect(Exotel.Signature.isAuthentic(account, request(`${asked}&agentline_token=${flow.password}`))).toBe(true)
  })

  it("reads Basic credentials whatever the header's case, and nothing from a malformed one", () => {
    expect(Exotel.Signature.basicCredentials(request(INBOUND, { Authorization: basic("a", "b:c").authorization }))).toEqual({ user: "a", password: "b:c" })
    expect(Exotel.Signature.basicCredentials(request(INBOUND, { authorization: "Basic !!!" }))).toBeUndefined()
    expect(Exotel.Signature.basicCredentials(request(INBOUND, { authorization: `Basic ${Buffer.from("nocolon").toString("base64")}` })))
      .toBeUndefined()
  })

  it("property: a query token verifies exactly when it is the URL's own", () => {
    FastCheck.assert(FastCheck.property(FastCheck.string({ minLength: 1, maxLength: 60 }), (sent) => {
      const url = new URL(CALLBACK)
      url.searchParams.set("agentline_token", sent)
      expect(Exotel.Signature.isAuthentic(account, request(url.toString()))).toBe(sent === Exotel.Signature.tokenFor(account, CALLBACK))
    }))
  })
})
