import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { Telnyx } from "../src/index.js"

const decode = (input: unknown) => Schema.decodeUnknownEither(Telnyx.TelnyxConfig)(input)

/** The failing fields of a decode, sorted. */
const failures = (input: unknown) => {
  const result = decode(input)
  return Either.isRight(result)
    ? []
    : [...new Set(ParseResult.ArrayFormatter.formatErrorSync(result.left).map((i) => i.path.join(".")))].sort()
}

const complete = { api_key: "KEY0123", connection_id: "1494404757140276705", webhook_public_key: "MCowBQYDK2VwAyEA" }

describe("telnyx configuration", () => {
  it("requires and hides the API key only; the public key is not a secret; AMD is off unless asked", () => {
    expect(Telnyx.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["api_key"])
    expect(Telnyx.fields.filter((f) => f.sensitive).map((f) => f.name)).toEqual(["api_key"])
    expect(failures({})).toEqual(["api_key"])
    expect(Either.isRight(decode(complete))).toBe(true)
    expect(Schema.decodeUnknownSync(Telnyx.TelnyxConfig)({ api_key: "k" })).toEqual({ api_key: "k", amd_enabled: false })
    expect(Schema.decodeUnknownSync(Telnyx.TelnyxConfig)({ api_key: "k", amd_enabled: true }).amd_enabled).toBe(true)
    expect(Schema.decodeUnknownSync(Telnyx.TelnyxConfig)({ api_key: "k", amd_enabled: null }).amd_enabled).toBe(false)
  })

  it("routes inbound calls by the connection id, and cannot without one", () => {
    expect(Telnyx.accountId(Schema.decodeUnknownSync(Telnyx.TelnyxConfig)(complete))).toBe("1494404757140276705")
    expect(Telnyx.accountId(Schema.decodeUnknownSync(Telnyx.TelnyxConfig)({ api_key: "k" }))).toBeUndefined()
    expect(Telnyx.accountId({ api_key: "k", connection_id: "", amd_enabled: false })).toBeUndefined()
  })
})
