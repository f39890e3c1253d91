/**
 * Runs across an organization: the filters of `GET /runs` over the generated columns and indexes of
 * migration 0024, the full-text search of 0025, keyset pages (docs/reports.md).
 */
import { CampaignId, DefinitionId, RunId, WorkflowId } from "@agentline/api/Ids"
import { CallType } from "@agentline/api/runs/Run"
import type { RunFilterParams } from "@agentline/api/runs/RunSearch"
import { DURATION_BUCKETS, RunReportsRepo } from "@agentline/core/runs/RunReportsRepo"
import { type Keyset, searchWords } from "@agentline/core/runs/RunQuery"
import { SqlClient, type SqlError, type Statement } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"
import { pgDocument } from "./RunColumns.js"

/** A text derived from JSON: SQLite gives a number where the JSON held one. */
const DerivedText = Schema.NullOr(Schema.Union(Schema.String, Schema.transform(Schema.Number, Schema.String, {
  strict: true,
  decode: String,
  encode: Number
})))

export const SummaryRow = Schema.Struct({
  id: Columns.Id(RunId),
  workflow_id: Columns.Id(WorkflowId),
  workflow_name: Schema.String,
  campaign_id: Schema.NullOr(Columns.Id(CampaignId)),
  definition_id: Schema.NullOr(Columns.Id(DefinitionId)),
  name: Schema.String,
  mode: Schema.String,
  call_type: CallType,
  is_completed: Columns.Bool,
  created_at: Columns.Ts,
  phone_number: DerivedText,
  disposition: DerivedText,
  outcome: DerivedText,
  duration_seconds: Columns.Int,
  cost_usd: Columns.Int,
  gathered_context: Schema.NullOr(Columns.JsonObject)
})
const decodeSummaries = Columns.decodeRows(SummaryRow)
const decodePageRows = Columns.decodeRows(Schema.Struct({ ...SummaryRow.fields, initial_context: Schema.NullOr(Columns.JsonObject) }))
const TotalsRow = Schema.Struct({
  runs: Columns.Int,
  completed: Columns.Int,
  reached: Columns.Int,
  duration_seconds: Columns.Int,
  cost_usd: Columns.Int
})

export const SUMMARY_COLUMNS = `r.id, r.workflow_id, w.name AS workflow_name, r.campaign_id, r.definition_id, r.name, r.mode,
  r.call_type, r.is_completed, r.created_at, r.phone_number, r.disposition, r.outcome, r.duration_seconds, r.cost_usd,
  r.gathered_context`

const SORT_COLUMNS = { created_at: "created_at", duration: "duration_seconds", cost: "cost_usd" } as const

/**
 * How a search joins the runs. `in`: the matching runs are read first and then sorted (best for rare
 * words). `walk` (common words): the runs are read in the sort's index and each is tested, so the first
 * page is found after a few hundred runs instead of sorting every match. On SQLite the walk tests each
 * run against the set of matching rowids, read once from FTS5 (`+r.id IN (...)`: the `+` keeps SQLite
 * from driving the query by that set, which would sort every match); asking FTS5 about each run instead
 * (`EXISTS ... rowid = r.id AND MATCH`) parses and runs the match per run, about 0.1 ms each: 175 ms for
 * a word in 6% of a million runs filtered to one agent, against 13 ms for the set (bench/runs-results.md).
 */
export type SearchPlan = "in" | "walk"

/** Matches up to which a search reads the matching runs first; beyond it, it walks (see `SearchPlan`). */
export const WALK_ABOVE = 5000

const ftsQuery = (words: ReadonlyArray<string>) => words.map((w) => `"${w}"`).join(" ")

/** The WHERE of a filter over `workflow_runs r` (everything but the sort's keyset). */
export const filterCondition = (
  sql: SqlClient.SqlClient,
  organizationId: number,
  query: Omit<RunFilterParams, "sort_by" | "sort_order">,
  plan: SearchPlan = "in"
) => {
  const bool = (value: boolean) => sql.literal(sql.onDialectOrElse({ pg: () => (value ? "TRUE" : "FALSE"), orElse: () => (value ? "1" : "0") }))
  const c: Array<Statement.Fragment> = [sql`r.organization_id = ${organizationId}`]
  if (query.workflow_id !== undefined) c.push(sql`r.workflow_id = ${query.workflow_id}`)
  if (query.campaign_id !== undefined) c.push(sql`r.campaign_id = ${query.campaign_id}`)
  if (query.status !== undefined) c.push(sql`r.is_completed = ${bool(query.status === "completed")}`)
  if (query.disposition !== undefined && query.disposition.length > 0) c.push(sql`r.disposition IN ${sql.in(query.disposition)}`)
  if (query.outcome !== undefined && query.outcome.length > 0) c.push(sql`r.outcome IN ${sql.in(query.outcome)}`)
  if (query.call_type !== undefined) c.push(sql`r.call_type = ${query.call_type}`)
  if (query.phone_number !== undefined) c.push(sql`r.phone_number = ${query.phone_number}`)
  if (query.start_date !== undefined) c.push(sql`r.created_at >= ${query.start_date}`)
  if (query.end_date !== undefined) c.push(sql`r.created_at <= ${query.end_date}`)
  if (query.min_duration !== undefined) c.push(sql`r.duration_seconds >= ${query.min_duration}`)
  if (query.max_duration !== undefined) c.push(sql`r.duration_seconds <= ${query.max_duration}`)
  if (query.min_cost !== undefined) c.push(sql`r.cost_usd >= ${query.min_cost}`)
  if (query.max_cost !== undefined) c.push(sql`r.cost_usd <= ${query.max_cost}`)
  const words = searchWords(query.q)
  if (words.length > 0) {
    c.push(sql.onDialectOrElse({
      // Few matches: the GIN index finds them all first (OFFSET 0 keeps the subquery whole); many: each run is tested as read.
      pg: () =>
        plan === "in"
          ? sql`r.id IN (SELECT id FROM workflow_runs WHERE (${sql.literal(pgDocument())}) @@ plainto_tsquery('simple', ${words.join(" ")}) OFFSET 0)`
          : sql`(${sql.literal(pgDocument())}) @@ plainto_tsquery('simple', ${words.join(" ")})`,
      // Each word a quoted phrase: FTS5's query syntax never sees the caller's text.
      orElse: () =>
        plan === "in"
          ? sql`r.id IN (SELECT rowid FROM workflow_runs_search WHERE workflow_runs_search MATCH ${ftsQuery(words)})`
          : sql`+r.id IN (SELECT rowid FROM workflow_runs_search WHERE workflow_runs_search MATCH ${ftsQuery(words)})`
    }))
  }
  return sql.and(c)
}

export const layer = Layer.effect(
  RunReportsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** Whether the search's words match more than `WALK_ABOVE` runs (of any organization; read from the full-text index). */
    const searchPlan = (query: Omit<RunFilterParams, "sort_by" | "sort_order">): Effect.Effect<SearchPlan, SqlError.SqlError> => {
      const words = searchWords(query.q)
      if (words.length === 0) return Effect.succeed("in")
      const matches = sql.onDialectOrElse({
        pg: () =>
          sql`SELECT COUNT(*) AS n FROM (SELECT 1 FROM workflow_runs
              WHERE (${sql.literal(pgDocument())}) @@ plainto_tsquery('simple', ${words.join(" ")}) LIMIT ${WALK_ABOVE + 1}) m`,
        orElse: () =>
          sql`SELECT COUNT(*) AS n FROM (SELECT rowid FROM workflow_runs_search WHERE workflow_runs_search MATCH ${ftsQuery(words)}
              LIMIT ${WALK_ABOVE + 1})`
      })
      return matches.pipe(
        Effect.flatMap(Columns.decodeSingle(Schema.Struct({ n: Columns.Int }))),
        Effect.map(({ n }) => (n > WALK_ABOVE ? "walk" as const : "in" as const))
      )
    }
    const bool = (value: boolean) => sql.literal(sql.onDialectOrElse({ pg: () => (value ? "TRUE" : "FALSE"), orElse: () => (value ? "1" : "0") }))
    const totalsColumns = sql`CAST(COUNT(*) AS INTEGER) AS runs,
      CAST(COALESCE(SUM(CASE WHEN r.is_completed = ${bool(true)} THEN 1 ELSE 0 END), 0) AS INTEGER) AS completed,
      CAST(COALESCE(SUM(CASE WHEN r.outcome = 'completed' THEN 1 ELSE 0 END), 0) AS INTEGER) AS reached,
      COALESCE(SUM(r.duration_seconds), 0) AS duration_seconds, COALESCE(SUM(r.cost_usd), 0) AS cost_usd`
    const day = sql.literal(sql.onDialectOrElse({ pg: () => "to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')", orElse: () => "substr(r.created_at, 1, 10)" }))
    const bucket = sql.literal(`CASE ${
      [...DURATION_BUCKETS].reverse().map(([label, from]) => `WHEN r.duration_seconds >= ${from} THEN '${label}'`).join(" ")
    } END`)
    return RunReportsRepo.of({
      page: (organizationId, query, offset, limit) => {
        const condition = filterCondition(sql, organizationId, query)
        const column = sql.literal(`r.${SORT_COLUMNS[query.sort_by]}`)
        const direction = sql.literal(query.sort_order === "desc" ? "DESC" : "ASC")
        return Effect.all({
          rows: sql`SELECT ${sql.literal(SUMMARY_COLUMNS)}, r.initial_context FROM workflow_runs r JOIN workflows w ON w.id = r.workflow_id
              WHERE ${condition} ORDER BY ${column} ${direction}, r.id ${direction} LIMIT ${limit} OFFSET ${offset}`.pipe(
            Effect.flatMap(decodePageRows)
          ),
          total: sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM workflow_runs r WHERE ${condition}`.pipe(
            Effect.flatMap(Columns.decodeSingle(Schema.Struct({ n: Columns.Int })))
          )
        }).pipe(
          Effect.map(({ rows, total }) => ({
            runs: rows.map(({ is_completed, ...row }) => ({ ...row, status: is_completed ? "completed" as const : "in_progress" as const })),
            total: total.n
          })),
          StorageBoundary.orDie
        )
      },
      totals: (organizationId, filter) =>
        sql`SELECT ${totalsColumns} FROM workflow_runs r WHERE ${filterCondition(sql, organizationId, filter)}`.pipe(
          Effect.flatMap(Columns.decodeSingle(TotalsRow)),
          StorageBoundary.orDie
        ),
      perDay: (organizationId, filter) =>
        sql`SELECT ${day} AS date, ${totalsColumns} FROM workflow_runs r WHERE ${filterCondition(sql, organizationId, filter)}
            GROUP BY ${day} ORDER BY ${day}`.pipe(
          Effect.flatMap(Columns.decodeRows(Schema.Struct({ date: Schema.String, ...TotalsRow.fields }))),
          StorageBoundary.orDie
        ),
      dispositions: (organizationId, filter) =>
        sql`SELECT r.disposition AS disposition, CAST(COUNT(*) AS INTEGER) AS count FROM workflow_runs r
            WHERE ${filterCondition(sql, organizationId, { ...filter, status: "completed" })}
            GROUP BY r.disposition ORDER BY COUNT(*) DESC, r.disposition`.pipe(
          Effect.flatMap(Columns.decodeRows(Schema.Struct({ disposition: DerivedText, count: Columns.Int }))),
          StorageBoundary.orDie
        ),
      durationBuckets: (organizationId, filter) =>
        sql`SELECT ${bucket} AS bucket, CAST(COUNT(*) AS INTEGER) AS count FROM workflow_runs r
            WHERE ${filterCondition(sql, organizationId, { ...filter, status: "completed" })} GROUP BY ${bucket}`.pipe(
          Effect.flatMap(Columns.decodeRows(Schema.Struct({ bucket: Schema.String, count: Columns.Int }))),
          Effect.map((rows) => DURATION_BUCKETS.map(([label]) => ({ bucket: label, count: rows.find((r) => r.bucket === label)?.count ?? 0 }))),
          StorageBoundary.orDie
        ),
      search: (organizationId, query, after, limit) => {
        const column = sql.literal(`r.${SORT_COLUMNS[query.sort_by]}`)
        const direction = sql.literal(query.sort_order === "desc" ? "DESC" : "ASC")
        const keyset = Option.match(after, {
          onNone: () => sql`1 = 1`,
          onSome: (k: Keyset) =>
            query.sort_order === "desc" ? sql`(${column}, r.id) < (${k.value}, ${k.id})` : sql`(${column}, r.id) > (${k.value}, ${k.id})`
        })
        return searchPlan(query).pipe(
          Effect.flatMap((plan) =>
            sql`SELECT ${sql.literal(SUMMARY_COLUMNS)} FROM workflow_runs r JOIN workflows w ON w.id = r.workflow_id
            WHERE ${filterCondition(sql, organizationId, query, plan)} AND ${keyset}
            ORDER BY ${column} ${direction}, r.id ${direction} LIMIT ${limit}`
          ),
          Effect.flatMap(decodeSummaries),
          Effect.map((rows) =>
            rows.map(({ is_completed, ...row }) => ({ ...row, status: is_completed ? "completed" as const : "in_progress" as const }))
          ),
          StorageBoundary.orDie
        )
      }
    })
  })
)
