/** Runs across the organization (`GET /runs`, `GET /runs/export`): filters, the summary of a run, pages. */
import { CampaignId, DefinitionId, RunId, WorkflowId } from "../Ids.js"
import { idFromString, IntFromString } from "../Params.js"
import { ParseResult, Schema } from "effect"
import { CallType } from "./Run.js"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** "a,b" → ["a", "b"] (empty entries dropped). */
export const CommaList = Schema.transform(Schema.String, Schema.Array(Schema.String), {
  strict: true,
  decode: (s) => s.split(",").map((x) => x.trim()).filter((x) => x.length > 0),
  encode: (xs) => xs.join(",")
})

/** An instant in any ISO-8601 form → the form runs are stored in (`2026-11-27T10:00:00.000Z`). */
export const IsoInstant = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (s, _, ast) => {
    const ms = /^\d{4}-\d{2}-\d{2}/.test(s) ? Date.parse(s) : Number.NaN
    return Number.isNaN(ms)
      ? ParseResult.fail(new ParseResult.Type(ast, s, "must be an ISO-8601 date or date-time"))
      : ParseResult.succeed(new Date(ms).toISOString())
  },
  encode: ParseResult.succeed
})

const NonNegative = Schema.NumberFromString.pipe(
  Schema.finite({ message: () => "must be a number" }),
  Schema.nonNegative({ message: () => "must be ≥ 0" })
)

export const RunStatus = Schema.Literal("completed", "in_progress")
export type RunStatus = typeof RunStatus.Type
export const RunSort = Schema.Literal("created_at", "duration", "cost")
export type RunSort = typeof RunSort.Type
export const SortOrder = Schema.Literal("asc", "desc")
export type SortOrder = typeof SortOrder.Type

/** The filters of `GET /runs` and its export (docs/reports.md), all optional, combined with AND. */
export const RunFilterParams = Schema.Struct({
  workflow_id: Schema.optional(idFromString(WorkflowId)),
  campaign_id: Schema.optional(idFromString(CampaignId)),
  status: Schema.optional(RunStatus),
  disposition: Schema.optional(CommaList),
  outcome: Schema.optional(CommaList),
  call_type: Schema.optional(CallType),
  phone_number: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64))),
  start_date: Schema.optional(IsoInstant),
  end_date: Schema.optional(IsoInstant),
  min_duration: Schema.optional(NonNegative),
  max_duration: Schema.optional(NonNegative),
  min_cost: Schema.optional(NonNegative),
  max_cost: Schema.optional(NonNegative),
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200, { message: () => "q is at most 200 characters" }))),
  sort_by: Schema.optionalWith(RunSort, { default: () => "created_at" as const }),
  sort_order: Schema.optionalWith(SortOrder, { default: () => "desc" as const })
})
export type RunFilterParams = typeof RunFilterParams.Type

export const RunListParams = Schema.Struct({
  ...RunFilterParams.fields,
  limit: Schema.optionalWith(
    IntFromString.pipe(Schema.between(1, 100, { message: () => "limit must be between 1 and 100" })),
    { default: () => 50 }
  ),
  cursor: Schema.optional(Schema.String.pipe(Schema.maxLength(500)))
})
export type RunListParams = typeof RunListParams.Type

/** One run in a list: what an operator reads and filters by, without the transcript and logs. */
export const RunSummary = Schema.Struct({
  id: RunId,
  workflow_id: WorkflowId,
  workflow_name: Schema.String,
  campaign_id: Schema.NullOr(CampaignId),
  definition_id: Schema.NullOr(DefinitionId),
  name: Schema.String,
  mode: Schema.String,
  call_type: CallType,
  status: RunStatus,
  created_at: Schema.String,
  phone_number: Schema.NullOr(Schema.String),
  disposition: Schema.NullOr(Schema.String),
  outcome: Schema.NullOr(Schema.String),
  duration_seconds: Schema.Number,
  cost_usd: Schema.Number,
  gathered_context: Schema.NullOr(JsonObject)
})
export type RunSummary = typeof RunSummary.Type

export const RunSearchPage = Schema.Struct({
  runs: Schema.Array(RunSummary),
  /** The next page's `cursor`; null on the last page. */
  next_cursor: Schema.NullOr(Schema.String)
})
export type RunSearchPage = typeof RunSearchPage.Type
