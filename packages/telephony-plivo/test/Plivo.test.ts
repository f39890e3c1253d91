import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { Plivo } from "../src/index.js"

const decode = (input: unknown) => Schema.decodeUnknownEither(Plivo.PlivoConfig)(input)

/** The failing fields of a decode, sorted. */
const failures = (input: unknown) => {
  const result = decode(input)
  return Either.isRight(result)
    ? []
    : [...new Set(ParseResult.ArrayFormatter.formatErrorSync(result.left).map((i) => i.path.join(".")))].sort()
}

const complete = { auth_id: "MAXXXXXXXXXXXXXXXXXX", auth_token: "plivo-token", application_id: "123456" }

describe("plivo configuration", () => {
  it("requires and hides the auth id and token", () => {
    expect(Plivo.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["auth_id", "auth_token"])
    expect(Plivo.fields.filter((f) => f.sensitive).map((f) => f.name)).toEqual(["auth_id", "auth_token"])
    expect(failures({})).toEqual(["auth_id", "auth_token"])
    expect(Either.isRight(decode(complete))).toBe(true)
  })

  it("treats a null application id as not set", () => {
    expect(Schema.decodeUnknownSync(Plivo.PlivoConfig)({ auth_id: "MA", auth_token: "t", application_id: null }))
      .toEqual({ auth_id: "MA", auth_token: "t", amd_enabled: false })
  })

  it("routes inbound calls by the auth id", () => {
    expect(Plivo.accountId(Schema.decodeUnknownSync(Plivo.PlivoConfig)(complete))).toBe("MAXXXXXXXXXXXXXXXXXX")
  })
})
