import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { CampaignId, RunId } from "../src/Ids.js"

describe("Ids", () => {
  it("decode integers only", () => {
    expect(Schema.decodeUnknownSync(CampaignId)(7)).toBe(7)
    expect(() => Schema.decodeUnknownSync(RunId)(1.5)).toThrow()
    expect(() => Schema.decodeUnknownSync(RunId)("7")).toThrow()
  })
})
