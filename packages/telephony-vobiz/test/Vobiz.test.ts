import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { Vobiz } from "../src/index.js"

const decode = (input: unknown) => Schema.decodeUnknownEither(Vobiz.VobizConfig)(input)

/** The failing fields of a decode, sorted. */
const failures = (input: unknown) => {
  const result = decode(input)
  return Either.isRight(result)
    ? []
    : [...new Set(ParseResult.ArrayFormatter.formatErrorSync(result.left).map((i) => i.path.join(".")))].sort()
}

const complete = { auth_id: "MA_SYQRLN1K", auth_token: "vobiz-token", application_id: "app-1" }

describe("vobiz configuration", () => {
  it("requires and hides the account id and token", () => {
    expect(Vobiz.fields.map((f) => f.name)).toEqual(["auth_id", "auth_token", "application_id", "amd_enabled"])
    expect(Vobiz.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["auth_id", "auth_token"])
    expect(Vobiz.fields.filter((f) => f.sensitive).map((f) => f.name)).toEqual(["auth_id", "auth_token"])
    expect(failures({})).toEqual(["auth_id", "auth_token"])
    expect(Either.isRight(decode(complete))).toBe(true)
  })

  it("routes inbound calls by the account id", () => {
    expect(Vobiz.accountId(Schema.decodeUnknownSync(Vobiz.VobizConfig)(complete))).toBe("MA_SYQRLN1K")
  })
})
