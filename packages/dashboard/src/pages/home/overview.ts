/**
 * The home page's figures from the reports and usage endpoints (docs/reports.md): per UTC day the calls
 * by outcome (`/organizations/reports/daily`: reached, not reached, in progress), the minutes and the cost
 * (`/organizations/usage/daily-breakdown`, whose days, the server's, are the chart's), and over the period
 * the reach rate.
 */
import type { DailyReport, DailyUsageBreakdown } from "@agentline/api/organizations/Reports"

export interface DayFigures {
  readonly date: string
  readonly reached: number
  readonly notReached: number
  readonly inProgress: number
  readonly calls: number
  readonly minutes: number
  readonly cost: number
}

export interface Overview {
  readonly days: ReadonlyArray<DayFigures>
  readonly calls: number
  readonly reached: number
  /** Calls that ended (reached or not). */
  readonly ended: number
  /** Reached calls over ended calls, in percent to one decimal; null when no call ended. */
  readonly reachRate: number | null
  readonly minutes: number
  readonly cost: number
}

type Usage = Pick<typeof DailyUsageBreakdown.Type, "breakdown">
type Report = Pick<DailyReport, "date" | "metrics">

export const overview = (usage: Usage, reports: ReadonlyArray<Report>): Overview => {
  const reportOf = new Map(reports.map((r) => [r.date, r.metrics]))
  const days = usage.breakdown.map((day): DayFigures => {
    const m = reportOf.get(day.date) ?? {}
    const reached = m["reached_runs"] ?? 0
    return {
      date: day.date,
      reached,
      notReached: (m["completed_runs"] ?? 0) - reached,
      inProgress: m["in_progress_runs"] ?? 0,
      calls: m["total_runs"] ?? 0,
      minutes: day.minutes,
      cost: day.cost_usd ?? 0
    }
  })
  const sum = (f: (d: DayFigures) => number) => days.reduce((n, d) => n + f(d), 0)
  const reached = sum((d) => d.reached)
  const ended = reached + sum((d) => d.notReached)
  return {
    days,
    calls: sum((d) => d.calls),
    reached,
    ended,
    reachRate: ended === 0 ? null : Math.round((reached / ended) * 1000) / 10,
    minutes: Math.round(sum((d) => d.minutes) * 100) / 100,
    cost: Math.round(sum((d) => d.cost) * 10_000) / 10_000
  }
}

/** A round upper bound for an axis (1, 2 or 5 times a power of ten), at least `max`. */
export const axisMax = (max: number): number => {
  if (!(max > 0)) return 1
  const power = 10 ** Math.floor(Math.log10(max))
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= max * (1 - 1e-12)) ?? 10 * power
}

export const formatMinutes = (minutes: number): string => (Math.round(minutes * 100) / 100).toString()
export const formatUsd = (value: number): string => `$${value.toFixed(value !== 0 && Math.abs(value) < 1 ? 4 : 2)}`
