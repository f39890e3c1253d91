import type { RunFilterParams, RunListParams, RunSearchPage, RunSummary } from "@agentline/api/runs/RunSearch"
import { Chunk, Effect, Either, Option, Stream } from "effect"
import { RunReportsRepo } from "./RunReportsRepo.js"
import { decodeCursor, encodeCursor, type Keyset, RUN_CSV_COLUMNS, runCsvLine, sortValue } from "./RunQuery.js"

/** Runs read by each page of an export: memory stays bounded by one page whatever the list's size. */
export const EXPORT_PAGE = 500

/** Runs across the organization (`GET /runs`): filtered, searched, sorted, in keyset pages, exported as CSV. */
export class RunSearch extends Effect.Service<RunSearch>()("@agentline/core/RunSearch", {
  effect: Effect.gen(function*() {
    const repo = yield* RunReportsRepo

    const keysetOf = (query: RunFilterParams, run: RunSummary): Keyset => ({ value: sortValue(run, query.sort_by), id: run.id })

    const list = Effect.fn("RunSearch.list")(function*(organizationId: number, params: RunListParams) {
      const after = params.cursor === undefined
        ? Option.none()
        : Option.some(yield* Either.match(decodeCursor(params.sort_by, params.sort_order, params.cursor), {
          onLeft: Effect.fail,
          onRight: Effect.succeed
        }))
      const rows = yield* repo.search(organizationId, params, after, params.limit + 1)
      const runs = rows.slice(0, params.limit)
      const last = runs[runs.length - 1]
      return {
        runs,
        next_cursor: rows.length > params.limit && last !== undefined
          ? encodeCursor(params.sort_by, params.sort_order, keysetOf(params, last))
          : null
      } satisfies RunSearchPage
    })

    /** Every matching run, read page by page (keyset) as the consumer pulls. */
    const all = (organizationId: number, query: RunFilterParams): Stream.Stream<RunSummary> =>
      Stream.paginateChunkEffect(Option.none<Keyset>(), (after) =>
        repo.search(organizationId, query, after, EXPORT_PAGE).pipe(
          Effect.map((rows) => {
            const last = rows[rows.length - 1]
            return [
              rows,
              rows.length < EXPORT_PAGE || last === undefined ? Option.none() : Option.some(Option.some(keysetOf(query, last)))
            ] as const
          }),
          Effect.map(([rows, next]) => [Chunk.fromIterable(rows), next] as const)
        ))

    /** The CSV of every matching run (header first), as bytes, streamed. */
    const csv = (organizationId: number, query: RunFilterParams): Stream.Stream<Uint8Array> => {
      const encoder = new TextEncoder()
      return Stream.concat(
        Stream.make(RUN_CSV_COLUMNS.join(",") + "\r\n"),
        all(organizationId, query).pipe(Stream.mapChunks((chunk) => Chunk.of(Chunk.join(Chunk.map(chunk, runCsvLine), ""))))
      ).pipe(Stream.map((text) => encoder.encode(text)), Stream.withSpan("RunSearch.csv"))
    }

    return { list, all, csv }
  })
}) {}
