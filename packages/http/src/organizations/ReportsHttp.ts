import { CurrentPrincipal } from "@agentline/api/Authentication"
import { AgentlineApi } from "@agentline/api/Api"
import { Reports } from "@agentline/core/runs/Reports"
import { RunSearch } from "@agentline/core/runs/RunSearch"
import { WorkflowCopies } from "@agentline/core/workflows/WorkflowCopies"
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Either } from "effect"
import { wire } from "../DomainErrors.js"
import { csvResponse } from "../runs/RunSearchHttp.js"

export const ReportsLive = HttpApiBuilder.group(AgentlineApi, "reports", (handlers) =>
  Effect.gen(function*() {
    const reports = yield* Reports
    const search = yield* RunSearch
    const copies = yield* WorkflowCopies
    return handlers
      .handle("daily", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(reports.daily(p, urlParams))))
      .handle("workflows", () => Effect.flatMap(CurrentPrincipal, (p) => wire(copies.summary(p, undefined))))
      .handle("dailyRuns", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(reports.dailyRuns(p, urlParams))))
      .handle("currentPeriod", () => Effect.flatMap(CurrentPrincipal, (p) => wire(reports.currentPeriod(p))))
      .handle("usageRuns", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(reports.usageRuns(p, urlParams))))
      .handleRaw("usageReport", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) =>
          Effect.map(
            wire(Either.match(reports.usageFilter(urlParams), { onLeft: Effect.fail, onRight: Effect.succeed })),
            (filter) => csvResponse("usage-runs.csv", search.csv(p.organizationId, { ...filter, sort_by: "created_at", sort_order: "desc" }))
          )))
      .handle("dailyBreakdown", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(reports.dailyBreakdown(p, urlParams.days))))
  }))
