import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { csvField, csvLine, decodeCursor, encodeCursor, searchWords } from "../../src/runs/RunQuery.js"

/** RFC 4180 parsing of one line, to check `csvLine` against. */
const parseCsvLine = (line: string): Array<string> => {
  const out: Array<string> = []
  let i = 0
  while (i <= line.length) {
    if (line[i] === "\"") {
      let field = ""
      i++
      while (i < line.length) {
        if (line[i] === "\"" && line[i + 1] === "\"") (field += "\"", i += 2)
        else if (line[i] === "\"") break
        else field += line[i++]
      }
      out.push(field)
      i += 2
    } else {
      const end = line.indexOf(",", i)
      out.push(line.slice(i, end === -1 ? line.length : end))
      i = end === -1 ? line.length + 1 : end + 1
    }
  }
  return out
}

describe("RunQuery", () => {
  it.prop(
    "a cursor decodes to its keyset for its own sort and order only",
    [
      FastCheck.constantFrom("created_at" as const, "duration" as const, "cost" as const),
      FastCheck.constantFrom("asc" as const, "desc" as const),
      FastCheck.integer({ min: 1, max: 2_147_483_647 }),
      FastCheck.double({ noNaN: true, noDefaultInfinity: true, min: 0 }),
      FastCheck.date({ noInvalidDate: true })
    ],
    ([sort, order, id, number, date]) => {
      const value = sort === "created_at" ? date.toISOString() : number
      const cursor = encodeCursor(sort, order, { value, id })
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(decodeCursor(sort, order, cursor)).toEqual(Either.right({ value, id }))
      expect(Either.isLeft(decodeCursor(sort, order === "asc" ? "desc" : "asc", cursor))).toBe(true)
      expect(Either.isLeft(decodeCursor(sort === "cost" ? "duration" : "cost", order, cursor))).toBe(true)
    }
  )

  it("refuses garbage and a cursor whose value does not fit its sort", () => {
    expect(Either.isLeft(decodeCursor("created_at", "desc", "garbage"))).toBe(true)
    expect(Either.isLeft(decodeCursor("created_at", "desc", encodeCursor("created_at", "desc", { value: 3, id: 1 })))).toBe(true)
  })

  it.prop(
    "a CSV line parses back to its fields (quotes, commas, line breaks), formulas neutralized",
    [FastCheck.array(FastCheck.oneof(FastCheck.string(), FastCheck.integer(), FastCheck.constant(null)), { minLength: 1, maxLength: 8 })],
    ([values]) => {
      const line = csvLine(values)
      expect(line.endsWith("\r\n")).toBe(true)
      const parsed = parseCsvLine(line.slice(0, -2))
      expect(parsed).toEqual(values.map((v) => {
        if (v === null) return ""
        const text = String(v)
        return /^[=+\-@\t\r]/.test(text) && !/^[+-]?\d/.test(text) ? `'${text}` : text
      }))
    }
  )

  it("csv fields: JSON for objects, numbers and phone numbers as they are, formulas escaped", () => {
    expect(csvField({ a: "x,y" })).toBe("\"{\"\"a\"\":\"\"x,y\"\"}\"")
    expect(csvField("+14155550100")).toBe("+14155550100")
    expect(csvField(-3)).toBe("-3")
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)")
  })

  it("search words: letters and digits, lower-cased, at most 16", () => {
    expect(searchWords("  Friday, dentist's \"OR\" (x)*")).toEqual(["friday", "dentist", "s", "or", "x"])
    expect(searchWords(undefined)).toEqual([])
    expect(searchWords(Array.from({ length: 20 }, (_, i) => `w${i}`).join(" "))).toHaveLength(16)
  })
})
