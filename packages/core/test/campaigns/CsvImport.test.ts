import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Option, Stream } from "effect"
import { describeProblems, makeProblems, readContacts } from "../../src/campaigns/CsvImport.js"

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
