import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { coerce, decodeArguments, extractValues } from "../../src/graph/Extraction.js"

describe("decodeArguments", () => {
  it.each([
    [undefined, { _tag: "Object", value: {} }],
    [null, { _tag: "Object", value: {} }],
    ["  ", { _tag: "Object", value: {} }],
    ['{"a":1}', { _tag: "Object", value: { a: 1 } }],
    [{ a: 1 }, { _tag: "Object", value: { a: 1 } }],
    ["{oops", { _tag: "Invalid", reason: "not valid JSON" }],
    ["[1]", { _tag: "Invalid", reason: "not an object" }],
    ["3", { _tag: "Invalid", reason: "not an object" }],
    [[], { _tag: "Invalid", reason: "not an object" }]
  ] as const)("%j", (raw, expected) => {
    expect(decodeArguments(raw)).toEqual(expected)
  })
})

describe("coerce", () => {
  it.each([
    ["string", "Rome", "Rome"],
    ["string", 42, "42"],
    ["string", true, undefined],
    ["string", { a: 1 }, undefined],
    ["number", 42, 42],
    ["number", " 4.5 ", 4.5],
    ["number", "", undefined],
    ["number", "forty", undefined],
    ["number", Number.NaN, undefined],
    ["number", Number.POSITIVE_INFINITY, undefined],
    ["number", true, undefined],
    ["boolean", true, true],
    ["boolean", " False ", false],
    ["boolean", "yes", undefined],
    ["boolean", 1, undefined]
  ] as const)("%s %j -> %j", (type, value, expected) => {
    expect(coerce(type, value)).toBe(expected)
  })

  it.prop("a finite number survives being quoted", [FastCheck.double({ noNaN: true, noDefaultInfinity: true })], ([n]) => {
    expect(coerce("number", String(n))).toBe(n === 0 ? 0 : n)
    expect(coerce("number", n)).toBe(n)
  })

  it.prop("the result is of the declared type or undefined", [FastCheck.constantFrom<Array<"string" | "number" | "boolean">>("string", "number", "boolean"), FastCheck.anything()], ([type, value]) => {
    const out = coerce(type, value)
    expect(out === undefined || typeof out === type).toBe(true)
  })
})

describe("extractValues", () => {
  const variables = [
    { name: "city", type: "string", prompt: null },
    { name: "age", type: "number" },
    { name: "interested", type: "boolean" }
  ] as const

  it("keeps typed values, skips absent and null ones, refuses mistyped ones and ignores undeclared names", () => {
    expect(extractValues(variables, { city: "Rome", age: "41", interested: null, call_disposition: "hacked" })).toEqual({
      values: { city: "Rome", age: 41 },
      summary: "Recorded city, age."
    })
    expect(extractValues(variables, { age: "old", interested: "maybe" })).toEqual({
      values: {},
      summary: "Nothing recorded. Not recorded: age (expected a number), interested (expected a boolean)."
    })
  })

  it("does not read inherited properties as arguments", () => {
    expect(extractValues([{ name: "toString", type: "string" }], {}).values).toEqual({})
  })

  it.prop(
    "only declared variables are written, each with its declared type",
    [FastCheck.dictionary(FastCheck.constantFrom("city", "age", "interested", "other", "call_disposition"), FastCheck.anything())],
    ([args]) => {
      const { values } = extractValues(variables, args)
      for (const [name, value] of Object.entries(values)) {
        const declared = variables.find((v) => v.name === name)
        expect(declared).toBeDefined()
        expect(typeof value).toBe(declared!.type)
      }
    }
  )
})
