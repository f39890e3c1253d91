import type { RunFilterParams, RunSummary } from "@agentline/api/runs/RunSearch"
import { Context, type Effect, type Option } from "effect"
import type { Keyset, RunFilter } from "./RunQuery.js"

export interface RunTotals {
  readonly runs: number
  readonly completed: number
  /** Runs whose call was answered (`outcome` completed). */
  readonly reached: number
  readonly duration_seconds: number
  readonly cost_usd: number
}

/** Buckets of call duration in seconds: [label, lower bound inclusive]. */
export const DURATION_BUCKETS = [["0-30", 0], ["30-60", 30], ["60-120", 60], ["120-300", 120], ["300+", 300]] as const

/** Storage port for reading runs across an organization: filtered, searched, sorted, in keyset pages. */
export class RunReportsRepo extends Context.Tag("@agentline/core/RunReportsRepo")<
  RunReportsRepo,
  {
    /** Up to `limit` runs of the organization matching `query`, in its sort, after `after`. */
    readonly search: (
      organizationId: number,
      query: RunFilterParams,
      after: Option.Option<Keyset>,
      limit: number
    ) => Effect.Effect<ReadonlyArray<RunSummary>>
    /** A page by offset (the reference's `page`/`limit`), and how many match in all. */
    readonly page: (
      organizationId: number,
      query: RunFilterParams,
      offset: number,
      limit: number
    ) => Effect.Effect<{ readonly runs: ReadonlyArray<RunSummary & { readonly initial_context: Record<string, unknown> | null }>; readonly total: number }>
    /** Totals over the matching runs. */
    readonly totals: (organizationId: number, filter: RunFilter) => Effect.Effect<RunTotals>
    /** Totals per UTC day (`YYYY-MM-DD`), days with runs only. */
    readonly perDay: (organizationId: number, filter: RunFilter) => Effect.Effect<ReadonlyArray<RunTotals & { readonly date: string }>>
    /** Completed runs per disposition (null when none was recorded). */
    readonly dispositions: (organizationId: number, filter: RunFilter) => Effect.Effect<ReadonlyArray<{ readonly disposition: string | null; readonly count: number }>>
    /** Completed runs per duration bucket (`DURATION_BUCKETS`' labels). */
    readonly durationBuckets: (organizationId: number, filter: RunFilter) => Effect.Effect<ReadonlyArray<{ readonly bucket: string; readonly count: number }>>
  }
>() {}
