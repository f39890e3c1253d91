import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { credentialHeaders } from "../../src/credentials/CredentialHeaders.js"

describe("credential headers", () => {
  it("each type adds its header", () => {
    expect(credentialHeaders("none", {})).toEqual({ _tag: "Headers", headers: {} })
    expect(credentialHeaders("api_key", { api_key: "k1" })).toEqual({ _tag: "Headers", headers: { "X-API-Key": "k1" } })
    expect(credentialHeaders("api_key", { api_key: "k1", header_name: "X-Token" })).toEqual({ _tag: "Headers", headers: { "X-Token": "k1" } })
    expect(credentialHeaders("bearer_token", { token: "t" })).toEqual({ _tag: "Headers", headers: { Authorization: "Bearer t" } })
    expect(credentialHeaders("basic_auth", { username: "ada", password: "p:w" })).toEqual({
      _tag: "Headers",
      headers: { Authorization: `Basic ${Buffer.from("ada:p:w").toString("base64")}` }
    })
    expect(credentialHeaders("custom_header", { header_name: "X-Secret", header_value: "v" })).toEqual({ _tag: "Headers", headers: { "X-Secret": "v" } })
  })

  it("every field at fault is named", () => {
    expect(credentialHeaders("basic_auth", { username: "a:b", password: 3 })).toEqual({
      _tag: "Invalid",
      issues: [{ field: "password", message: "password must be a string" }, { field: "username", message: "username must not contain ':' (HTTP Basic)" }]
    })
    expect(credentialHeaders("custom_header", { header_name: "bad name", header_value: "" })).toEqual({
      _tag: "Invalid",
      issues: [
        { field: "header_name", message: "header_name must be an HTTP header name (letters, digits and -, e.g. X-API-Key)" },
        { field: "header_value", message: "header_value is required" }
      ]
    })
    expect(credentialHeaders("bearer_token", {})._tag).toBe("Invalid")
  })

  it("no value with a line break ever becomes a header (request splitting)", () => {
    FastCheck.assert(FastCheck.property(FastCheck.string(), FastCheck.constantFrom("\r", "\n", "\u0000"), FastCheck.string(), (a, bad, b) => {
      expect(credentialHeaders("bearer_token", { token: a + bad + b })._tag).toBe("Invalid")
      expect(credentialHeaders("custom_header", { header_name: "X-A", header_value: a + bad + b })._tag).toBe("Invalid")
    }))
  })
})
