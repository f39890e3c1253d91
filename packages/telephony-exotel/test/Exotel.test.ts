import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { Exotel } from "../src/index.js"

const decode = (input: unknown) => Schema.decodeUnknownEither(Exotel.ExotelConfig)(input)

/** The failing fields of a decode, sorted. */
const failures = (input: unknown) => {
  const result = decode(input)
  return Either.isRight(result)
    ? []
    : [...new Set(ParseResult.ArrayFormatter.formatErrorSync(result.left).map((i) => i.path.join(".")))].sort()
}

const complete = { account_sid: "acme1", api_key: "exo-key", api_token: "exo-token", api_base_url: "https://api.in.exotel.com" }

describe("exotel configuration", () => {
  it("requires and hides the SID, key and token", () => {
    expect(Exotel.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["account_sid", "api_key", "api_token"])
    expect(Exotel.fields.filter((f) => f.sensitive).map((f) => f.name)).toEqual(["account_sid", "api_key", "api_token"])
    expect(failures({})).toEqual(["account_sid", "api_key", "api_token"])
    expect(Either.isRight(decode(complete))).toBe(true)
  })

  it("accepts only Exotel's two API regions", () => {
    expect(failures({ ...complete, api_base_url: "https://evil.example.com" })).toEqual(["api_base_url"])
    expect(Exotel.fields.find((f) => f.name === "api_base_url")!.options!.map((o) => o.value)).toEqual([...Exotel.apiBaseUrls])
  })

  it("routes inbound calls by the account SID", () => {
    expect(Exotel.provider.accountId(Schema.decodeUnknownSync(Exotel.ExotelConfig)(complete))).toBe("acme1")
  })
})
