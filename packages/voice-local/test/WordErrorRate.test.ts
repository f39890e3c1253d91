import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { wordErrorRate, wordErrors, words } from "../src/WordErrorRate.js"

const sentence = FastCheck.array(FastCheck.constantFrom("yes", "no", "book", "tuesday", "at", "three", "please"), { maxLength: 8 })
  .map((ws) => ws.join(" "))

describe("WordErrorRate", () => {
  it("counts substitutions, deletions and insertions", () => {
    expect(wordErrors("book an appointment", "book an appointment")).toBe(0)
    expect(wordErrors("book an appointment", "book the appointment")).toBe(1)
    expect(wordErrors("book an appointment", "book appointment")).toBe(1)
    expect(wordErrors("book an appointment", "please book an appointment now")).toBe(2)
    expect(wordErrors("yes please", "")).toBe(2)
    expect(wordErrors("", "noise")).toBe(1)
    expect(words("Hello, I'd like: Tuesday!")).toEqual(["hello", "i'd", "like", "tuesday"])
  })

  it("the rate divides the errors by the reference words", () => {
    expect(wordErrorRate([{ reference: "yes please", hypothesis: "yes" }, { reference: "goodbye", hypothesis: "goodbye" }])).toBeCloseTo(1 / 3)
    expect(wordErrorRate([])).toBe(0)
  })

  it.prop("is a distance: zero on itself, symmetric, bounded by the longer length", [sentence, sentence], ([a, b]) => {
    expect(wordErrors(a, a)).toBe(0)
    expect(wordErrors(a, b)).toBe(wordErrors(b, a))
    expect(wordErrors(a, b)).toBeLessThanOrEqual(Math.max(words(a).length, words(b).length))
    expect(wordErrors(a, b)).toBeGreaterThanOrEqual(Math.abs(words(a).length - words(b).length))
  })
})
