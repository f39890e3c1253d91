import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Option, Stream } from "effect"
import { describeCsvError, describeProblems, makeProblems, readContacts } from "../../src/campaigns/CsvImport.js"

const encoder = new TextEncoder()

describe("readContacts", () => {
  it.effect("reads 100,000 rows in constant memory: never more than a bounded number of rows ahead of the consumer", () =>
    Effect.gen(function*() {
      let produced = 0
      // The file arrives in 4 KiB-ish chunks generated on demand, as from disk.
      const areas = [212, 213, 310, 312, 404, 415, 512, 617, 646, 702]
      const source = Stream.unfoldChunk(1, (row) => {
        if (row > 100_000) return Option.none()
        const last = Math.min(row + 199, 100_000)
        const lines: Array<string> = row === 1 ? ["phone_number,first_name"] : []
        for (let i = row; i <= last; i++) lines.push(`+1${areas[Math.floor((i - 1) / 10_000)]}555${String((i - 1) % 10_000).padStart(4, "0")},n${i}`)
        produced = last
        return Option.some([Chunk.of(encoder.encode(lines.join("\n") + "\n")), last + 1] as const)
      })
      const problems = makeProblems()
      let consumed = 0
      let maxAhead = 0
      yield* readContacts(source, { requiredVariables: ["first_name"], problems, batchSize: 1000 }).pipe(
        Stream.runForEach((batch) =>
          Effect.sync(() => {
            consumed += batch.length
            maxAhead = Math.max(maxAhead, produced - consumed)
          })
        )
      )
      expect(consumed).toBe(100_000)
      expect(describeProblems(problems)).toBeUndefined()
      // csv-parse's queue (1,024 records) + a batch in the making + the chunk being parsed: a constant.
      expect(maxAhead).toBeLessThan(5_000)
    }))

  it.effect("header, BOM, CRLF, quotes and newlines in fields", () =>
    Effect.gen(function*() {
      const problems = makeProblems()
      const rows = yield* readContacts(
        Stream.make(encoder.encode("\uFEFFphone_number,Note\r\n+14155550100,\"a, b\nc\"\r\n"), encoder.encode("\r\n+14155550101,\"x \"\"y\"\"\"\r\n")),
        { requiredVariables: [], problems }
      ).pipe(Stream.runCollect, Effect.map((c) => Chunk.toArray(c).flat()))
      expect(rows.map((r) => [r.row_number, r.phone_number, r.initial_context.note])).toEqual([
        [2, "+14155550100", "a, b\nc"],
        [3, "+14155550101", "x \"y\""]
      ])
    }))
})

const readAll = (text: string | ReadonlyArray<string>) =>
  readContacts(Stream.fromIterable((typeof text === "string" ? [text] : text).map((t) => encoder.encode(t))), {
    requiredVariables: [],
    problems: makeProblems()
  }).pipe(Stream.runCollect, Effect.map((c) => Chunk.toArray(c).flat()))

describe("unreadable CSV says what is wrong and where (issue 16, defect 9)", () => {
  it.effect("an unterminated quote names its row and the end of the file", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(readAll("phone_number,name\n+14155550100,Ann\n+14155550101,\"Bob\n+14155550102,Cy\n"))
      expect(error._tag).toBe("CsvInvalid")
      expect(error.message).toContain("row 3 opens a quoted field")
      expect(error.message).toContain("never closed")
    }))

  it.effect("an unterminated quote is found when the file arrives in many chunks", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(readAll(["phone_number,name\n+1415555", "0100,Ann\n\n+14155550101,\"Bo", "b\n+14155550102,Cy"]))
      expect(error.message).toContain("row 3 opens a quoted field")
    }))

  it.effect("characters after a closing quote name the row and line", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(readAll("phone_number,name\n+14155550100,\"Ann\nLee\"\n+14155550101,\"Bob\"x\n"))
      expect(error.message).toContain("row 3 (line 4)")
      expect(error.message).toContain("after its closing quote")
    }))

  it("every csv-parse error gets a place, even one without a known code", () => {
    expect(describeCsvError({ code: "CSV_SOMETHING", message: "Odd", lines: 7, records: 5 })).toBe(
      "The file is not readable as CSV at row 6 (line 7): Odd"
    )
    expect(describeCsvError(new Error("boom"))).toBe("The file is not readable as CSV at an unknown place: boom")
    expect(describeCsvError({ code: "CSV_INVALID_OPENING_QUOTE", lines: 2, records: 1 })).toContain("row 2 (line 2)")
  })
})

describe("the end of the file", () => {
  it.effect("a last record without a newline is read, with CRLF or LF line ends, and a trailing CRLF adds nothing", () =>
    Effect.gen(function*() {
      for (const text of ["phone_number\r\n+14155550100\r\n+14155550101", "phone_number\n+14155550100\n+14155550101", "phone_number\r\n+14155550100\r\n+14155550101\r\n"]) {
        const rows = yield* readAll(text)
        expect(rows.map((r) => r.phone_number)).toEqual(["+14155550100", "+14155550101"])
      }
    }))
})

describe("NUL characters (issue 16, defect 4)", () => {
  it.effect("a NUL in any cell makes its row a problem; in the header, the file is refused", () =>
    Effect.gen(function*() {
      const problems = makeProblems()
      const rows = yield* readContacts(
        Stream.make(encoder.encode("phone_number,name\n+14155550100,A\u0000da\n+14155550101,Bob\n+1415555\u00000102,Cy\n")),
        { requiredVariables: [], problems }
      ).pipe(Stream.runCollect, Effect.map((c) => Chunk.toArray(c).flat()))
      expect(rows.map((r) => r.row_number)).toEqual([3])
      expect(describeProblems(problems)).toBe("NUL characters (\\u0000) in rows: 2, 4. Remove them; they cannot be stored.")
      const header = yield* Effect.flip(readAll("phone_number,na\u0000me\n+14155550100,Ada\n"))
      expect(header.message).toContain("header row contains NUL")
    }))
})

describe("row limit and duplicates within the file (issue 16, defect 7: checked before anything is written)", () => {
  it.effect("more rows than allowed stops reading with a message naming the limit; exactly the limit is fine", () =>
    Effect.gen(function*() {
      const file = (rows: number) => ["phone_number", ...Array.from({ length: rows }, (_, i) => `+1415555${String(1000 + i)}`)].join("\n")
      const read = (rows: number) =>
        readContacts(Stream.make(encoder.encode(file(rows))), { requiredVariables: [], problems: makeProblems(), maxRows: 3 }).pipe(
          Stream.runCollect,
          Effect.map((c) => Chunk.toArray(c).flat().length)
        )
      expect(yield* read(3)).toBe(3)
      const error = yield* Effect.flip(read(4))
      expect(error.message).toBe("The file has more than 3 contact rows, the most one campaign takes; split it into several campaigns")
    }))

  it.effect("a number seen earlier in the file (after normalization) is a duplicate row", () =>
    Effect.gen(function*() {
      const problems = makeProblems()
      const rows = yield* readContacts(Stream.make(encoder.encode("phone_number\n+14155550100\n+1 (415) 555-0100\n+14155550101\n+14155550100\n")), {
        requiredVariables: [],
        problems
      }).pipe(Stream.runCollect, Effect.map((c) => Chunk.toArray(c).flat()))
      expect(rows.map((r) => r.row_number)).toEqual([2, 4])
      expect(describeProblems(problems)).toBe("Duplicate phone numbers in rows: 3, 5. Phone numbers in a campaign must be unique.")
    }))
})
