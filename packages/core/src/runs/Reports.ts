import type { Principal } from "@agentline/api/Authentication"
import type { DailyReport, DailyReportParams, UsageRunsParams } from "@agentline/api/organizations/Reports"
import type { RunFilterParams } from "@agentline/api/runs/RunSearch"
import { Clock, Effect, Either, Option } from "effect"
import { fromReferenceFilters, lastDays, localDay, monthOf } from "./ReportDays.js"
import { RunReportsRepo } from "./RunReportsRepo.js"

/** The reference's token unit: a hundredth of a US dollar. */
const tokens = (usd: number) => Math.round(usd * 100 * 10_000) / 10_000
const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits

/** The organization's reports and usage (docs/reports.md), over its runs' generated columns. */
export class Reports extends Effect.Service<Reports>()("@agentline/core/Reports", {
  effect: Effect.gen(function*() {
    const repo = yield* RunReportsRepo

    const dayFilter = (params: DailyReportParams) => {
      const { end, start } = localDay(params.date, params.timezone)
      return { start_date: start, end_date: end, ...(params.workflow_id !== undefined ? { workflow_id: params.workflow_id } : {}) }
    }

    const daily = Effect.fn("Reports.daily")(function*(principal: Principal, params: DailyReportParams) {
      const filter = dayFilter(params)
      const [totals, dispositions, buckets] = yield* Effect.all([
        repo.totals(principal.organizationId, filter),
        repo.dispositions(principal.organizationId, filter),
        repo.durationBuckets(principal.organizationId, filter)
      ])
      const completed = dispositions.reduce((n, d) => n + d.count, 0)
      return {
        date: params.date,
        timezone: params.timezone,
        workflow_id: params.workflow_id ?? null,
        metrics: {
          total_runs: totals.runs,
          completed_runs: totals.completed,
          in_progress_runs: totals.runs - totals.completed,
          reached_runs: totals.reached,
          total_duration_seconds: Math.round(totals.duration_seconds),
          average_duration_seconds: totals.completed === 0 ? 0 : Math.round(totals.duration_seconds / totals.completed)
        },
        disposition_distribution: dispositions.map((d) => ({
          disposition: d.disposition ?? "unknown",
          count: d.count,
          percentage: completed === 0 ? 0 : round((d.count / completed) * 100, 2)
        })),
        call_duration_distribution: buckets
      } satisfies DailyReport
    })

    const dailyRuns = Effect.fn("Reports.dailyRuns")(function*(principal: Principal, params: DailyReportParams) {
      const runs = yield* repo.search(principal.organizationId, { ...dayFilter(params), sort_by: "created_at", sort_order: "desc" }, Option.none(), 1000)
      return runs.map((r) => ({
        run_id: r.id,
        workflow_id: r.workflow_id,
        workflow_name: r.workflow_name,
        phone_number: r.phone_number ?? "",
        disposition: r.disposition ?? "",
        duration_seconds: r.duration_seconds,
        created_at: r.created_at
      }))
    })

    const currentPeriod = Effect.fn("Reports.currentPeriod")(function*(principal: Principal) {
      const { end, start } = monthOf(yield* Clock.currentTimeMillis)
      const totals = yield* repo.totals(principal.organizationId, { start_date: start, end_date: end })
      return {
        period_start: start,
        period_end: end,
        used_dograh_tokens: tokens(totals.cost_usd),
        total_duration_seconds: Math.round(totals.duration_seconds),
        used_amount_usd: round(totals.cost_usd, 6),
        currency: "USD",
        price_per_second_usd: null
      }
    })

    /** The run filter of the reference's usage parameters (dates and JSON `filters`). */
    const usageFilter = (params: Pick<UsageRunsParams, "start_date" | "end_date" | "filters">) =>
      Either.map(fromReferenceFilters(params.filters), (filter) => ({
        ...filter,
        ...(params.start_date !== undefined ? { start_date: params.start_date } : {}),
        ...(params.end_date !== undefined ? { end_date: params.end_date } : {})
      }))

    const usageRuns = Effect.fn("Reports.usageRuns")(function*(principal: Principal, params: UsageRunsParams) {
      const filter = yield* Either.match(usageFilter(params), { onLeft: Effect.fail, onRight: Effect.succeed })
      const query: RunFilterParams = { ...filter, sort_by: params.sort_by === "duration" ? "duration" : "created_at", sort_order: params.sort_order }
      const [{ runs, total }, totals] = yield* Effect.all([
        repo.page(principal.organizationId, query, (params.page - 1) * params.limit, params.limit),
        repo.totals(principal.organizationId, filter)
      ])
      const text = (v: unknown) => (typeof v === "string" ? v : null)
      return {
        runs: runs.map((r) => ({
          id: r.id,
          workflow_id: r.workflow_id,
          workflow_name: r.workflow_name,
          name: r.name,
          created_at: r.created_at,
          dograh_token_usage: tokens(r.cost_usd),
          call_duration_seconds: r.duration_seconds,
          charge_usd: r.cost_usd,
          phone_number: r.phone_number,
          caller_number: text(r.initial_context?.caller_number),
          called_number: text(r.initial_context?.called_number),
          call_type: r.call_type,
          mode: r.mode,
          disposition: r.disposition,
          initial_context: r.initial_context,
          gathered_context: r.gathered_context
        })),
        total_dograh_tokens: tokens(totals.cost_usd),
        total_duration_seconds: Math.round(totals.duration_seconds),
        total_count: total,
        page: params.page,
        limit: params.limit,
        total_pages: Math.ceil(total / params.limit)
      }
    })

    const dailyBreakdown = Effect.fn("Reports.dailyBreakdown")(function*(principal: Principal, days: number) {
      const dates = lastDays(yield* Clock.currentTimeMillis, days)
      const rows = yield* repo.perDay(principal.organizationId, { start_date: `${dates[0]}T00:00:00.000Z` })
      const breakdown = dates.map((date) => {
        const row = rows.find((r) => r.date === date)
        const cost = row?.cost_usd ?? 0
        return {
          date,
          call_count: row?.runs ?? 0,
          minutes: round((row?.duration_seconds ?? 0) / 60, 2),
          cost_usd: round(cost, 6),
          dograh_tokens: tokens(cost)
        }
      })
      const totalCost = breakdown.reduce((n, d) => n + (d.cost_usd ?? 0), 0)
      return {
        breakdown,
        total_minutes: round(breakdown.reduce((n, d) => n + d.minutes, 0), 2),
        total_cost_usd: round(totalCost, 6),
        total_dograh_tokens: tokens(totalCost),
        currency: "USD"
      }
    })

    return { daily, dailyRuns, currentPeriod, usageFilter, usageRuns, dailyBreakdown }
  })
}) {}
