import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { sameJson } from "../src/Json.js"

/** The same JSON value with every object's keys in reverse order (as JSONB may hand them back). */
const reordered = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reordered)
    : value !== null && typeof value === "object"
    ? Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)]))
    : value

describe("sameJson", () => {
  it("a value equals itself with its keys in any order", () => {
    FastCheck.assert(FastCheck.property(FastCheck.jsonValue(), (value) => sameJson(value, reordered(value))))
  })

  it("agrees with JSON.stringify on values without reordering", () => {
    FastCheck.assert(FastCheck.property(FastCheck.jsonValue(), FastCheck.jsonValue(), (a, b) => {
      // -0 and 0 are the same JSON text
      const textEqual = JSON.stringify(a) === JSON.stringify(b)
      return !textEqual || sameJson(a, b)
    }))
    FastCheck.assert(FastCheck.property(FastCheck.jsonValue(), FastCheck.jsonValue(), (a, b) =>
      sameJson(a, b) === sameJson(reordered(a), b)
    ))
  })

  it.each([
    [{ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: undefined }, true],
    [{ a: 1 }, { a: 1, b: null }, false],
    [[1, 2], [2, 1], false],
    [[1], { 0: 1 }, false],
    [{}, [], false],
    [null, {}, false],
    ["1", 1, false],
    [{ a: { b: 1 } }, { a: { b: 2 } }, false]
  ])("%j ~ %j: %s", (a, b, expected) => {
    expect(sameJson(a, b)).toBe(expected)
    expect(sameJson(b, a)).toBe(expected)
  })
})
