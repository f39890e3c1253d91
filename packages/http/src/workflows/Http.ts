import { CurrentPrincipal } from "@agentline/api/Authentication"
import { NotFound } from "@agentline/api/Errors"
import { NODE_TYPE_DECLARATIONS, NODE_TYPES, nodeTypesResponse, isNodeType } from "@agentline/api/workflows/NodeTypes"
import { Runs } from "@agentline/core/runs/Runs"
import { Workflows } from "@agentline/core/workflows/Workflows"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"

export const WorkflowsLive = HttpApiBuilder.group(AgentlineApi, "workflows", (handlers) =>
  Effect.gen(function*() {
    const workflows = yield* Workflows
    const runs = yield* Runs
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(workflows.create(p, payload))))
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(workflows.list(p, urlParams.status))))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(workflows.get(p, path.workflow_id))))
      .handle("update", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(workflows.update(p, path.workflow_id, payload))))
      .handle("setStatus", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(workflows.setStatus(p, path.workflow_id, payload.status))))
      .handle("versions", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(workflows.versions(p, path.workflow_id))))
      .handle("publish", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(workflows.publish(p, path.workflow_id))))
      .handle("createDraft", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(workflows.createDraft(p, path.workflow_id))))
      .handle("validate", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(workflows.validate(p, path.workflow_id))))
      .handle("runs", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) =>
          Effect.zipRight(
            wire(workflows.get(p, path.workflow_id)),
            wire(runs.page(p, { workflowId: path.workflow_id }, urlParams.page, urlParams.limit))
          )))
      .handle("run", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(runs.get(p, path.workflow_id, path.run_id))))
  }))

export const NodeTypesLive = HttpApiBuilder.group(AgentlineApi, "nodeTypes", (handlers) =>
  handlers
    .handle("list", () => Effect.succeed(nodeTypesResponse))
    .handle("get", ({ path }) =>
      isNodeType(path.name)
        ? Effect.succeed(NODE_TYPE_DECLARATIONS[path.name].spec)
        : Effect.fail(
          new NotFound({
            detail: `Unknown node type: ${JSON.stringify(path.name)}; this server has ${NODE_TYPES.join(", ")} (GET /api/v1/node-types lists them)`
          })
        ))
)
