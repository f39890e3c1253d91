import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { expectedLiterals, issuesOf } from "../src/ValidationIssues.js"

const issues = <A, I>(schema: Schema.Schema<A, I>, input: unknown) => {
  const result = Schema.decodeUnknownEither(schema, { errors: "all" })(input)
  if (Either.isRight(result)) throw new Error("expected a decode failure")
  return issuesOf("body", result.left, input)
}

const Rule = Schema.Struct({ match: Schema.Literal("prefix", "exact"), pattern: Schema.String })

describe("issuesOf: a wrong literal says what is allowed (defect 9.7)", () => {
  it.each([
    ["a union of literals", Schema.Literal("prefix", "exact"), "'prefix' or 'exact'"],
    ["a single literal", Schema.Literal("prefix"), "'prefix'"],
    ["three literals", Schema.Literal("a", "b", "c"), "'a', 'b' or 'c'"],
    ["numbers and booleans", Schema.Literal(1, 2, true), "1, 2 or true"],
    ["an optional literal", Schema.optional(Schema.Literal("a", "b")), "'a' or 'b'"],
    ["a nullable literal", Schema.NullOr(Schema.Literal("a", "b")), "'a' or 'b'"],
    ["an optional nullable literal", Schema.optional(Schema.NullOr(Schema.Literal("a", "b"))), "'a' or 'b'"],
    ["an enum", Schema.Enums({ A: "a", B: "b" } as const), "'a' or 'b'"]
  ] as const)("%s", (_, v, expected) => {
    const input = { v: "+1415" }
    const found = issues(Schema.Struct({ v }), input)
    expect(found).toHaveLength(1)
    expect(found[0]).toMatchObject({ msg: `Input should be ${expected}`, type: "literal_error", ctx: { expected } })
    expect(found[0]!.loc[0]).toBe("body")
  })

  it("a simulator-style rule nested in an array reports the field, the value and the choices", () => {
    const input = { rules: [{ match: "+1415...", pattern: "+1415" }] }
    expect(issues(Schema.Struct({ rules: Schema.Array(Rule) }), input)).toEqual([{
      loc: ["body", "rules", 0, "match"],
      msg: "Input should be 'prefix' or 'exact'",
      type: "literal_error",
      input: "+1415...",
      ctx: { expected: "'prefix' or 'exact'" }
    }])
  })

  it("a wrong tag in a tagged union names the tags, not a missing field", () => {
    const Animal = Schema.Union(Schema.TaggedStruct("cat", { x: Schema.String }), Schema.TaggedStruct("dog", { y: Schema.String }))
    const input = { animal: { _tag: "bird", x: "a" } }
    expect(issues(Schema.Struct({ animal: Animal }), input)).toMatchObject([
      { loc: ["body", "animal", "_tag"], msg: "Input should be 'cat' or 'dog'", type: "literal_error", input: "bird" }
    ])
    const ByMatch = Schema.Union(
      Schema.Struct({ match: Schema.Literal("prefix"), pattern: Schema.String }),
      Schema.Struct({ match: Schema.Literal("exact"), pattern: Schema.String, n: Schema.Number })
    )
    expect(issues(Schema.Struct({ rule: ByMatch }), { rule: { match: "+1415", pattern: "+1" } })).toMatchObject([
      { loc: ["body", "rule", "match"], msg: "Input should be 'prefix' or 'exact'", type: "literal_error", input: "+1415" }
    ])
  })

  it("a union that is not only literals keeps a type error", () => {
    const input = { v: true }
    expect(issues(Schema.Struct({ v: Schema.Union(Schema.Literal("auto"), Schema.Number) }), input)).toMatchObject([
      { loc: ["body", "v"], type: "type_error", input: true }
    ])
  })

  it("a missing literal field is still 'Field required'", () => {
    expect(issues(Rule, { pattern: "x" })).toMatchObject([{ loc: ["body", "match"], msg: "Field required", type: "missing" }])
  })

  it("quotes in literals are escaped", () => {
    expect(expectedLiterals(["it's", 1n])).toBe("'it\\'s' or 1")
    expect(expectedLiterals([])).toBe("")
  })
})

describe("issuesOf: a filter that names a field", () => {
  it("is reported at that field, as a value error with the filter's message", () => {
    const Slot = Schema.Struct({ start: Schema.String, end: Schema.String }).pipe(
      Schema.filter((s) => s.start === s.end ? { path: ["end"], message: "end must differ from start" } : true)
    )
    const input = { slots: [{ start: "10:00", end: "10:00" }] }
    expect(issues(Schema.Struct({ slots: Schema.Array(Slot) }), input)).toEqual([{
      loc: ["body", "slots", 0, "end"],
      msg: "end must differ from start",
      type: "value_error",
      input: "10:00",
      ctx: {}
    }])
  })
})
