import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { Cloudonix } from "../src/index.js"

const decode = (input: unknown) => Schema.decodeUnknownEither(Cloudonix.CloudonixConfig)(input)

/** The failing fields of a decode, sorted. */
const failures = (input: unknown) => {
  const result = decode(input)
  return Either.isRight(result)
    ? []
    : [...new Set(ParseResult.ArrayFormatter.formatErrorSync(result.left).map((i) => i.path.join(".")))].sort()
}

const complete = { bearer_token: "XI0123456789", domain_id: "acme.cloudonix.net", application_name: "voice" }

describe("cloudonix configuration", () => {
  it("requires the token and domain and hides the token", () => {
    expect(Cloudonix.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["bearer_token", "domain_id"])
    expect(Cloudonix.fields.filter((f) => f.sensitive).map((f) => f.name)).toEqual(["bearer_token"])
    expect(failures({})).toEqual(["bearer_token", "domain_id"])
    expect(Either.isRight(decode(complete))).toBe(true)
  })

  it("routes inbound calls by the domain", () => {
    expect(Cloudonix.accountId(Schema.decodeUnknownSync(Cloudonix.CloudonixConfig)(complete))).toBe("acme.cloudonix.net")
    expect(Cloudonix.accountId({ bearer_token: "t", domain_id: "Acme" })).toBe("acme.cloudonix.net")
  })

  it.each([
    ["Acme", "acme.cloudonix.net"],
    ["  ACME  ", "acme.cloudonix.net"],
    ["acme.cloudonix.net", "acme.cloudonix.net"],
    ["Voice.Example.COM", "voice.example.com"],
    ["", undefined],
    ["   ", undefined],
    [undefined, undefined]
  ])("domain %j → %j", (input, expected) => {
    expect(Cloudonix.cloudonixDomain(input)).toBe(expected)
  })
})
