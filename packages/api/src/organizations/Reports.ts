/** The organization's reports and usage (the reference's routes and shapes; docs/reports.md). */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { BadRequestResponse } from "../Errors.js"
import { RunId, WorkflowId } from "../Ids.js"
import { idFromString, IntFromString } from "../Params.js"
import { IsoInstant } from "../runs/RunSearch.js"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export const TimeZone = Schema.String.pipe(Schema.filter(isTimeZone, { message: () => "timezone must be an IANA time zone" }))
export const Day = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}$/, { message: () => "date must be YYYY-MM-DD" }),
  Schema.filter((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), { message: () => "date must be a real day" })
)

export const DailyReportParams = Schema.Struct({
  date: Day,
  timezone: Schema.optionalWith(TimeZone, { default: () => "UTC" }),
  workflow_id: Schema.optional(idFromString(WorkflowId))
})
export type DailyReportParams = typeof DailyReportParams.Type

export const DailyReport = Schema.Struct({
  date: Schema.String,
  timezone: Schema.String,
  workflow_id: Schema.NullOr(WorkflowId),
  metrics: Schema.Record({ key: Schema.String, value: Schema.Int }),
  disposition_distribution: Schema.Array(Schema.Struct({ disposition: Schema.String, count: Schema.Int, percentage: Schema.Number })),
  call_duration_distribution: Schema.Array(Schema.Struct({ bucket: Schema.String, count: Schema.Int }))
})
export type DailyReport = typeof DailyReport.Type

export const WorkflowOption = Schema.Struct({ id: WorkflowId, name: Schema.String })

export const WorkflowRunDetail = Schema.Struct({
  run_id: RunId,
  workflow_id: WorkflowId,
  workflow_name: Schema.String,
  phone_number: Schema.String,
  disposition: Schema.String,
  duration_seconds: Schema.Number,
  created_at: Schema.String
})

export const CurrentUsage = Schema.Struct({
  period_start: Schema.String,
  period_end: Schema.String,
  used_dograh_tokens: Schema.Number,
  total_duration_seconds: Schema.Int,
  used_amount_usd: Schema.NullOr(Schema.Number),
  currency: Schema.NullOr(Schema.String),
  price_per_second_usd: Schema.NullOr(Schema.Number)
})

export const UsageRunsParams = Schema.Struct({
  start_date: Schema.optional(IsoInstant),
  end_date: Schema.optional(IsoInstant),
  page: Schema.optionalWith(IntFromString.pipe(Schema.greaterThanOrEqualTo(1, { message: () => "page must be ≥ 1" })), { default: () => 1 }),
  limit: Schema.optionalWith(IntFromString.pipe(Schema.between(1, 100, { message: () => "limit must be between 1 and 100" })), {
    default: () => 50
  }),
  /** The reference's JSON array of `{attribute, type, value}` (docs/reports.md lists the attributes read). */
  filters: Schema.optional(Schema.String),
  sort_by: Schema.optionalWith(Schema.Literal("created_at", "duration"), { default: () => "created_at" as const }),
  sort_order: Schema.optionalWith(Schema.Literal("asc", "desc"), { default: () => "desc" as const })
})
export type UsageRunsParams = typeof UsageRunsParams.Type
export const UsageReportParams = Schema.Struct({
  start_date: UsageRunsParams.fields.start_date,
  end_date: UsageRunsParams.fields.end_date,
  filters: UsageRunsParams.fields.filters
})

export const UsageRun = Schema.Struct({
  id: RunId,
  workflow_id: WorkflowId,
  workflow_name: Schema.NullOr(Schema.String),
  name: Schema.String,
  created_at: Schema.String,
  dograh_token_usage: Schema.Number,
  call_duration_seconds: Schema.Number,
  charge_usd: Schema.NullOr(Schema.Number),
  phone_number: Schema.NullOr(Schema.String),
  caller_number: Schema.NullOr(Schema.String),
  called_number: Schema.NullOr(Schema.String),
  call_type: Schema.NullOr(Schema.String),
  mode: Schema.NullOr(Schema.String),
  disposition: Schema.NullOr(Schema.String),
  initial_context: Schema.NullOr(JsonObject),
  gathered_context: Schema.NullOr(JsonObject)
})

export const UsageHistory = Schema.Struct({
  runs: Schema.Array(UsageRun),
  total_dograh_tokens: Schema.Number,
  total_duration_seconds: Schema.Int,
  total_count: Schema.Int,
  page: Schema.Int,
  limit: Schema.Int,
  total_pages: Schema.Int
})

export const DailyUsageBreakdown = Schema.Struct({
  breakdown: Schema.Array(Schema.Struct({
    date: Schema.String,
    call_count: Schema.Int,
    minutes: Schema.Number,
    cost_usd: Schema.NullOr(Schema.Number),
    dograh_tokens: Schema.Number
  })),
  total_minutes: Schema.Number,
  total_cost_usd: Schema.NullOr(Schema.Number),
  total_dograh_tokens: Schema.Number,
  currency: Schema.NullOr(Schema.String)
})

export class ReportsApi extends HttpApiGroup.make("reports")
  .add(
    HttpApiEndpoint.get("daily", "/organizations/reports/daily").setUrlParams(DailyReportParams).addSuccess(DailyReport)
      .annotate(OpenApi.Summary, "Report one day's calls")
  )
  .add(
    HttpApiEndpoint.get("workflows", "/organizations/reports/workflows").addSuccess(Schema.Array(WorkflowOption))
      .annotate(OpenApi.Summary, "List the agents reports can be filtered by")
  )
  .add(
    HttpApiEndpoint.get("dailyRuns", "/organizations/reports/daily/runs").setUrlParams(DailyReportParams)
      .addSuccess(Schema.Array(WorkflowRunDetail))
      .annotate(OpenApi.Summary, "List one day's runs (at most 1,000)")
  )
  .add(
    HttpApiEndpoint.get("currentPeriod", "/organizations/usage/current-period").addSuccess(CurrentUsage)
      .annotate(OpenApi.Summary, "Usage of the current calendar month")
  )
  .add(
    HttpApiEndpoint.get("usageRuns", "/organizations/usage/runs").setUrlParams(UsageRunsParams).addSuccess(UsageHistory).addError(BadRequestResponse)
      .annotate(OpenApi.Summary, "List runs with their usage, by page")
  )
  .add(
    HttpApiEndpoint.get("usageReport", "/organizations/usage/runs/report").setUrlParams(UsageReportParams).addError(BadRequestResponse)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/csv" }))
      .annotate(OpenApi.Summary, "Download runs with their usage as CSV")
  )
  .add(
    HttpApiEndpoint.get("dailyBreakdown", "/organizations/usage/daily-breakdown")
      .setUrlParams(Schema.Struct({
        days: Schema.optionalWith(IntFromString.pipe(Schema.between(1, 30, { message: () => "days must be between 1 and 30" })), {
          default: () => 7
        })
      }))
      .addSuccess(DailyUsageBreakdown)
      .annotate(OpenApi.Summary, "Usage per day over the last days")
  )
  .middleware(Authentication)
{}
