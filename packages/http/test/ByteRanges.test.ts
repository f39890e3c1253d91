import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { chooseRange, contentRange } from "../src/runs/ByteRanges.js"

describe("chooseRange (RFC 9110 byte ranges)", () => {
  it("reads the forms players send, and refuses what lies past the end", () => {
    const size = 1000
    expect(chooseRange({ range: "bytes=0-" }, size)).toEqual({ _tag: "Part", start: 0, end: 999 })
    expect(chooseRange({ range: "bytes=100-199" }, size)).toEqual({ _tag: "Part", start: 100, end: 199 })
    expect(chooseRange({ range: "bytes=990-5000" }, size)).toEqual({ _tag: "Part", start: 990, end: 999 })
    expect(chooseRange({ range: "bytes=-10" }, size)).toEqual({ _tag: "Part", start: 990, end: 999 })
    // A suffix longer than the file is the whole file (RFC 9110 §14.1.3).
    expect(chooseRange({ range: "bytes=-5000" }, size)).toEqual({ _tag: "Part", start: 0, end: 999 })
    expect(chooseRange({ range: "BYTES = 5-6" }, size)).toEqual({ _tag: "Part", start: 5, end: 6 })
    // Overlapping and adjacent ranges are one.
    expect(chooseRange({ range: "bytes=0-9,10-19,5-12" }, size)).toEqual({ _tag: "Part", start: 0, end: 19 })
    expect(chooseRange({ range: "bytes=1000-" }, size)).toEqual({ _tag: "Unsatisfiable" })
    expect(chooseRange({ range: "bytes=-0" }, size)).toEqual({ _tag: "Unsatisfiable" })
    expect(chooseRange({ range: "bytes=0-" }, 0)).toEqual({ _tag: "Unsatisfiable" })
    expect(chooseRange({ range: "bytes=-5" }, 0)).toEqual({ _tag: "Unsatisfiable" })
  })

  it("serves the whole file for no range, another unit, a malformed header, disjoint ranges or If-Range", () => {
    for (const range of [undefined, "items=0-5", "bytes", "bytes=abc", "bytes=5", "0-5", "bytes=0-1,5-6"]) {
      expect(chooseRange({ range }, 1000), String(range)).toEqual({ _tag: "Whole" })
    }
    expect(chooseRange({ range: "bytes=0-9", ifRange: "\"x\"" }, 1000)).toEqual({ _tag: "Whole" })
  })

  it("Content-Range of a part and of a refusal", () => {
    expect(contentRange({ _tag: "Part", start: 100, end: 199 }, 1000)).toBe("bytes 100-199/1000")
    expect(contentRange({ _tag: "Unsatisfiable" }, 1000)).toBe("bytes */1000")
    expect(contentRange({ _tag: "Whole" }, 1000)).toBeUndefined()
  })

  const sized = FastCheck.integer({ min: 1, max: 1_000_000 }).chain((size) =>
    FastCheck.tuple(FastCheck.constant(size), FastCheck.integer({ min: 0, max: size - 1 }), FastCheck.integer({ min: 0, max: 2_000_000 }))
  )

  it.prop("first-last: a part within the file, clamped to its end, whenever it starts inside it", [sized], ([[size, start, last]]) => {
    const choice = chooseRange({ range: `bytes=${start}-${last}` }, size)
    // An invalid range (last before first) is refused rather than ignored; the RFC allows either.
    if (last < start) expect(choice).toEqual({ _tag: "Unsatisfiable" })
    else expect(choice).toEqual({ _tag: "Part", start, end: Math.min(last, size - 1) })
  })

  it.prop("a start at or past the end is refused with the size", [FastCheck.integer({ min: 0, max: 1000 }), FastCheck.nat(1000)], ([size, past]) => {
    const choice = chooseRange({ range: `bytes=${size + past}-` }, size)
    expect(choice).toEqual({ _tag: "Unsatisfiable" })
    expect(contentRange(choice, size)).toBe(`bytes */${size}`)
  })

  it.prop("a suffix is the last bytes, never more than the file", [FastCheck.integer({ min: 1, max: 10_000 }), FastCheck.integer({ min: 1, max: 20_000 })], ([size, suffix]) => {
    expect(chooseRange({ range: `bytes=-${suffix}` }, size)).toEqual({ _tag: "Part", start: Math.max(0, size - suffix), end: size - 1 })
  })
})
