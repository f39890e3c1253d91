import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { Twilio } from "../src/index.js"

const decode = (input: unknown) => Schema.decodeUnknownEither(Twilio.TwilioConfig)(input)

/** The failing fields of a decode, sorted. */
const failures = (input: unknown) => {
  const result = decode(input)
  return Either.isRight(result)
    ? []
    : [...new Set(ParseResult.ArrayFormatter.formatErrorSync(result.left).map((i) => i.path.join(".")))].sort()
}

const complete = { account_sid: "AC0123456789abcdef0123456789abcdef", auth_token: "twilio-token", amd_enabled: true }

describe("twilio configuration", () => {
  it("requires and hides the account SID and token", () => {
    expect(Twilio.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["account_sid", "auth_token"])
    expect(Twilio.fields.filter((f) => f.sensitive).map((f) => f.name)).toEqual(["account_sid", "auth_token"])
    expect(failures({})).toEqual(["account_sid", "auth_token"])
    expect(failures({ account_sid: "  ", auth_token: "  " })).toEqual(["account_sid", "auth_token"])
    expect(Either.isRight(decode(complete))).toBe(true)
  })

  it("reports every invalid field, whatever options the caller decodes with", () => {
    const result = Schema.decodeUnknownEither(Twilio.TwilioConfig, { errors: "first", onExcessProperty: "error" })({
      account_sid: 7,
      auth_token: "",
      amd_enabled: "yes",
      surprise: 1
    })
    expect(Either.isLeft(result)).toBe(true)
    const issues = ParseResult.ArrayFormatter.formatErrorSync((result as Either.Left<ParseResult.ParseError, unknown>).left)
    expect([...new Set(issues.map((i) => i.path.join(".")))].sort()).toEqual(["account_sid", "amd_enabled", "auth_token"])
    expect(issues.find((i) => i.path[0] === "auth_token")!.message).toBe("auth_token must not be empty")
  })

  it("defaults answering machine detection to off, null included", () => {
    expect(Schema.decodeUnknownSync(Twilio.TwilioConfig)({ account_sid: "AC1", auth_token: "t" }))
      .toEqual({ account_sid: "AC1", auth_token: "t", amd_enabled: false })
    expect(Schema.decodeUnknownSync(Twilio.TwilioConfig)({ account_sid: "AC1", auth_token: "t", amd_enabled: null }))
      .toEqual({ account_sid: "AC1", auth_token: "t", amd_enabled: false })
    expect(failures({ ...complete, amd_enabled: "true" })).toEqual(["amd_enabled"])
  })

  it("routes inbound calls by the account SID", () => {
    expect(Twilio.accountId(Schema.decodeUnknownSync(Twilio.TwilioConfig)(complete))).toBe("AC0123456789abcdef0123456789abcdef")
  })
})
