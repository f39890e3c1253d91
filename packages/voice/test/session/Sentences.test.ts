import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { emptySentenceBuffer, flushText, pushText } from "../../src/session/Sentences.js"

const split = (deltas: ReadonlyArray<string>) => {
  let buffer = emptySentenceBuffer
  const out: Array<string> = []
  for (const delta of deltas) {
    const [next, sentences] = pushText(buffer, delta)
    buffer = next
    out.push(...sentences)
  }
  return { out, rest: flushText(buffer) }
}

describe("Sentences", () => {
  it("a sentence is released as soon as its end and the following space arrive", () => {
    expect(split(["Sure", ", Tuesday", " works. Wh", "at time?", " Noon"])).toEqual({ out: ["Sure, Tuesday works.", "What time?"], rest: ["Noon"] })
  })

  it("decimals and abbreviations without a following space do not cut; quotes and line breaks do", () => {
    expect(split(["It costs 3.50 dollars! \"Great.\" Next\nline"]).out).toEqual(["It costs 3.50 dollars!", "\"Great.\"", "Next"])
  })

  it("a long clause without an end is cut at a comma so speech starts early", () => {
    const long = "We have the basic plan, " + "which includes many features and ".repeat(5) + "more"
    const { out } = split([long])
    expect(out.length).toBe(1)
    expect(out[0]!.endsWith(",")).toBe(true)
  })

  it("property: however the text is cut into deltas, the words come out in order and whole", () => {
    FastCheck.assert(FastCheck.property(
      FastCheck.array(FastCheck.constantFrom("Hello", "there.", "How", "are", "you?", "Fine,", "thanks!", "3.5", "ok;"), { minLength: 1, maxLength: 40 }),
      FastCheck.array(FastCheck.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 40 }),
      (words, cuts) => {
        const text = words.join(" ")
        const deltas: Array<string> = []
        let i = 0
        let c = 0
        while (i < text.length) {
          const n = cuts[c++ % cuts.length]!
          deltas.push(text.slice(i, i + n))
          i += n
        }
        const { out, rest } = split(deltas)
        expect([...out, ...rest].join(" ").split(/\s+/)).toEqual(words)
      }
    ))
  })
})
