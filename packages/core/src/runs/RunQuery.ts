/**
 * Pure parts of listing runs across the organization: the keyset cursor (opaque on the wire, tied to
 * the sort it was made for) and the CSV rows of an export.
 */
import type { RunFilterParams, RunSort, RunSummary, SortOrder } from "@agentline/api/runs/RunSearch"
import { Either, Encoding, Schema } from "effect"
import { InvalidRunsCursor } from "./Errors.js"

/** Where a page ends: the last run's sort value and id (ties broken by id, in the same order). */
export interface Keyset {
  readonly value: string | number
  readonly id: number
}

export const sortValue = (run: RunSummary, sort: RunSort): string | number =>
  sort === "created_at" ? run.created_at : sort === "duration" ? run.duration_seconds : run.cost_usd

const CursorJson = Schema.parseJson(Schema.Struct({
  s: Schema.String,
  o: Schema.String,
  v: Schema.Union(Schema.String, Schema.Number),
  id: Schema.Int
}))

export const encodeCursor = (sort: RunSort, order: SortOrder, keyset: Keyset): string =>
  Encoding.encodeBase64Url(JSON.stringify({ s: sort, o: order, v: keyset.value, id: keyset.id }))

/** The keyset of a cursor made for this sort and order; another one (or garbage) is refused. */
export const decodeCursor = (sort: RunSort, order: SortOrder, cursor: string): Either.Either<Keyset, InvalidRunsCursor> =>
  Encoding.decodeBase64UrlString(cursor).pipe(
    Either.flatMap((text) => Schema.decodeUnknownEither(CursorJson)(text)),
    Either.mapLeft(() => new InvalidRunsCursor({ reason: "it is not a cursor of this list" })),
    Either.flatMap((c) =>
      c.s !== sort || c.o !== order
        ? Either.left(new InvalidRunsCursor({ reason: `it was made for sort_by=${c.s}&sort_order=${c.o}` }))
        : typeof c.v !== (sort === "created_at" ? "string" : "number")
        ? Either.left(new InvalidRunsCursor({ reason: "it is not a cursor of this list" }))
        : Either.right({ value: c.v, id: c.id })
    )
  )

/** The words of a search (at most 16), as the full-text indexes split them: letters and digits. */
export const searchWords = (q: string | undefined): ReadonlyArray<string> =>
  q === undefined ? [] : (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 16)

/** A CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a leading =+-@ is escaped against formula injection. */
export const csvField = (value: unknown): string => {
  if (value === null || value === undefined) return ""
  const text = typeof value === "object" ? JSON.stringify(value) : String(value)
  const safe = /^[=+\-@\t\r]/.test(text) && !/^[+-]?\d/.test(text) ? `'${text}` : text
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll("\"", "\"\"")}"` : safe
}

export const csvLine = (values: ReadonlyArray<unknown>): string => values.map(csvField).join(",") + "\r\n"

export const RUN_CSV_COLUMNS = [
  "id",
  "created_at",
  "workflow_id",
  "workflow_name",
  "campaign_id",
  "name",
  "call_type",
  "status",
  "phone_number",
  "disposition",
  "outcome",
  "duration_seconds",
  "cost_usd",
  "gathered_context"
] as const satisfies ReadonlyArray<keyof RunSummary>

export const runCsvLine = (run: RunSummary): string => csvLine(RUN_CSV_COLUMNS.map((column) => run[column]))

/** A filter without sort: what reports count over. */
export type RunFilter = Omit<RunFilterParams, "sort_by" | "sort_order">
