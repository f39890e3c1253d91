import { CurrentPrincipal } from "@agentline/api/Authentication"
import { AgentlineApi } from "@agentline/api/Api"
import { RunSearch } from "@agentline/core/runs/RunSearch"
import { WorkflowCopies } from "@agentline/core/workflows/WorkflowCopies"
import { Workflows } from "@agentline/core/workflows/Workflows"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { wire } from "../DomainErrors.js"
import { csvResponse } from "../runs/RunSearchHttp.js"

export const WorkflowOperationsLive = HttpApiBuilder.group(AgentlineApi, "workflowOperations", (handlers) =>
  Effect.gen(function*() {
    const copies = yield* WorkflowCopies
    const workflows = yield* Workflows
    const search = yield* RunSearch
    return handlers
      .handle("count", () => Effect.flatMap(CurrentPrincipal, (p) => wire(copies.count(p))))
      .handle("summary", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(copies.summary(p, urlParams.status))))
      .handle("duplicate", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(copies.duplicate(p, path.workflow_id))))
      .handleRaw("report", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) =>
          Effect.as(
            wire(workflows.get(p, path.workflow_id)),
            csvResponse(
              `agent-${path.workflow_id}-runs.csv`,
              search.csv(p.organizationId, { ...urlParams, workflow_id: path.workflow_id, sort_by: "created_at", sort_order: "desc" })
            )
          )))
      .handle("templates", () => Effect.succeed(copies.templates))
      .handle("createFromTemplate", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(copies.createFromTemplate(p, payload))))
      .handle("duplicateTemplate", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(copies.duplicateTemplate(p, payload.template_id, payload.workflow_name))))
  }))
