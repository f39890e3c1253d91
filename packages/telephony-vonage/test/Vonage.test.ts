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
  })

  it("routes inbound calls by the API key", () => {
    expect(Vonage.provider.accountId(Schema.decodeUnknownSync(Vonage.VonageConfig)(complete))).toBe("abcd1234")
  })
})
