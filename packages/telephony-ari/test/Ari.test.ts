import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { Ari } from "../src/index.js"

const decode = (input: unknown) => Schema.decodeUnknownEither(Ari.AriConfig)(input)

/** The failing fields of a decode, sorted. */
const failures = (input: unknown) => {
  const result = decode(input)
  return Either.isRight(result)
    ? []
    : [...new Set(ParseResult.ArrayFormatter.formatErrorSync(result.left).map((i) => i.path.join(".")))].sort()
}

const complete = { ari_endpoint: "http://pbx.example.com:8088", app_name: "agentline", app_password: "ari-pass", ws_client_name: "media" }

describe("ari configuration", () => {
  it("requires the endpoint, user and password (all reported at once) and hides the password", () => {
    expect(Ari.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["ari_endpoint", "app_name", "app_password"])
    expect(Ari.fields.map((f) => f.name)).toEqual(["ari_endpoint", "app_name", "app_password", "ws_client_name", "dial_string"])
    expect(Ari.fields.filter((f) => f.sensitive).map((f) => f.name)).toEqual(["app_password"])
    expect(failures({})).toEqual(["app_name", "app_password", "ari_endpoint"])
    expect(failures({ ari_endpoint: " ", app_name: " ", app_password: " " })).toEqual(["app_name", "app_password", "ari_endpoint"])
    expect(Either.isRight(decode(complete))).toBe(true)
  })

  it("drops unknown keys (from_numbers, provider, read-only echoes), trims, and defaults the WebSocket client", () => {
    expect(Schema.decodeUnknownSync(Ari.AriConfig)({
      provider: "ari",
      from_numbers: ["+14155550100"],
      stasis_app_name: "agentline_0123",
      ari_endpoint: " http://pbx:8088 ",
      app_name: "user\n",
      app_password: "pw"
    })).toEqual({ ari_endpoint: "http://pbx:8088", app_name: "user", app_password: "pw", ws_client_name: "", dial_string: "" })
    expect(Schema.decodeUnknownSync(Ari.AriConfig)({ ...complete, ws_client_name: null }).ws_client_name).toBe("")
  })

  it.each(["pbx.example.com:8088", "ws://pbx:8088", "pbx:8088x"])("rejects the endpoint %j with an actionable message", (endpoint) => {
    const result = decode({ ...complete, ari_endpoint: endpoint })
    expect(Either.isLeft(result)).toBe(true)
    const issues = ParseResult.ArrayFormatter.formatErrorSync((result as Either.Left<ParseResult.ParseError, unknown>).left)
    expect(issues.map((i) => i.path.join("."))).toEqual(["ari_endpoint"])
    expect(issues[0]!.message).toContain("http:// or https:// URL")
  })
})

describe("ari account id (defect 9.6: ARI numbers have a routing key too)", () => {
  it("is the normalized endpoint and the ARI user", () => {
    expect(Ari.accountId(Schema.decodeUnknownSync(Ari.AriConfig)(complete))).toBe("http://pbx.example.com:8088#agentline")
  })

  it.each([
    ["http://PBX.Example.com:8088/", "http://pbx.example.com:8088"],
    ["https://pbx.example.com:443/ari/", "https://pbx.example.com/ari"],
    ["http://pbx.example.com:80", "http://pbx.example.com"],
    ["http://pbx.example.com:8088/?x=1#top", "http://pbx.example.com:8088"]
  ])("spells one box one way: %s → %s", (endpoint, normalized) => {
    expect(Ari.normalizeEndpoint(endpoint)).toBe(normalized)
  })

  it("differs by box and by user, and never loses the user", () => {
    const id = (ari_endpoint: string, app_name: string) => Ari.accountId({ ari_endpoint, app_name })
    expect(id("http://pbx-a:8088", "agentline")).not.toBe(id("http://pbx-b:8088", "agentline"))
    expect(id("http://pbx-a:8088", "one")).not.toBe(id("http://pbx-a:8088", "two"))
    expect(id("http://pbx-a:8088/", "one")).toBe(id("http://PBX-A:8088", "one"))
  })
})
