import { CurrentPrincipal } from "@agentline/core/organizations/Principal"
import { Runs } from "@agentline/core/runs/Runs"
import { Workflows } from "@agentline/core/workflows/Workflows"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "../Api.js"

export const WorkflowsLive = HttpApiBuilder.group(AgentlineApi, "workflows", (handlers) =>
  Effect.gen(function*() {
    const workflows = yield* Workflows
    const runs = yield* Runs
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => workflows.create(p, payload)))
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => workflows.list(p, urlParams.status)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => workflows.get(p, path.workflow_id)))
      .handle("update", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => workflows.update(p, path.workflow_id, payload)))
      .handle("setStatus", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => workflows.setStatus(p, path.workflow_id, payload.status)))
      .handle("versions", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => workflows.versions(p, path.workflow_id)))
      .handle("runs", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) =>
          Effect.zipRight(
            workflows.get(p, path.workflow_id),
            runs.page(p, { workflowId: path.workflow_id }, urlParams.page, urlParams.limit)
          )))
      .handle("run", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => runs.get(p, path.workflow_id, path.run_id)))
  }))
