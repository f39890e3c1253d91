import type { RunFilterParams, RunSummary } from "@agentline/api/runs/RunSearch"
import { Context, type Effect, type Option } from "effect"
import type { Keyset } from "./RunQuery.js"

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
  }
>() {}
