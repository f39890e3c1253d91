import { Clock, Effect, Either, Option } from "effect"
import * as Crypto from "node:crypto"
import { Conflict, NotFound, ValidationError, type ValidationIssue } from "../Errors.js"
import type { Principal } from "../organizations/Principal.js"
import type { CreateWorkflowRequest, UpdateWorkflowRequest, WorkflowStatus } from "./Workflow.js"
import { type DefinitionIssue, mintTriggerPaths, triggerPaths, validateDefinition } from "./WorkflowDefinition.js"
import { type StoredWorkflow, type TriggerConflict, type VersionContent, WorkflowsRepo } from "./WorkflowsRepo.js"

const iso = (millis: number) => new Date(millis).toISOString()

const toIssue = (issue: DefinitionIssue): ValidationIssue => ({
  loc: ["body", "workflow_definition", ...(issue.kind === "workflow" ? [] : [issue.kind === "node" ? "nodes" : "edges", issue.id ?? "?"]), ...(issue.field ? [issue.field] : [])],
  msg: issue.message,
  type: "workflow_definition",
  input: null,
  ctx: { kind: issue.kind, id: issue.id, field: issue.field },
  kind: issue.kind,
  id: issue.id,
  field: issue.field,
  message: issue.message
})

const triggerConflict = (conflict: TriggerConflict) =>
  new Conflict({
    detail: `trigger_path '${conflict.trigger_path}' is already used by another agent; trigger paths are unique across all agents`
  })

const notFound = (id: number) => new NotFound({ detail: `Workflow with id ${id} not found` })

/** Validates a definition and mints missing trigger paths; 422 listing every structural problem. */
const prepare = (
  input: Pick<VersionContent, "template_context_variables" | "workflow_configurations"> & { readonly workflow_definition: unknown }
): Effect.Effect<VersionContent, ValidationError> => {
  const { errors, definition } = validateDefinition(input.workflow_definition)
  if (errors.length > 0) return Effect.fail(new ValidationError({ detail: errors.map(toIssue) }))
  const minted = mintTriggerPaths(definition, () => Crypto.randomUUID())
  return Effect.succeed({
    workflow_definition: minted as unknown as Record<string, unknown>,
    template_context_variables: input.template_context_variables,
    workflow_configurations: input.workflow_configurations,
    trigger_paths: triggerPaths(minted)
  })
}

export class Workflows extends Effect.Service<Workflows>()("@agentline/core/Workflows", {
  effect: Effect.gen(function*() {
    const repo = yield* WorkflowsRepo

    const find = (principal: Principal, id: number) =>
      Effect.flatMap(repo.find(principal.organizationId, id), Option.match({
        onNone: () => Effect.fail(notFound(id)),
        onSome: (w: StoredWorkflow) => Effect.succeed(w)
      }))

    const create = Effect.fn("Workflows.create")(function*(principal: Principal, request: CreateWorkflowRequest) {
      const content = yield* prepare({
        workflow_definition: request.workflow_definition,
        template_context_variables: request.template_context_variables ?? null,
        workflow_configurations: request.workflow_configurations ?? null
      })
      const created = yield* repo.insert({
        organization_id: principal.organizationId,
        workflow_uuid: Crypto.randomUUID(),
        name: request.name,
        content,
        now: iso(yield* Clock.currentTimeMillis)
      })
      return yield* Either.match(created, { onLeft: (c) => Effect.fail(triggerConflict(c)), onRight: Effect.succeed })
    })

    const list = Effect.fn("Workflows.list")(function*(principal: Principal, status: string | undefined) {
      const statuses = (status ?? "active,archived").split(",").map((s) => s.trim()) as Array<WorkflowStatus>
      return yield* repo.list(principal.organizationId, statuses)
    })

    const get = Effect.fn("Workflows.get")(function*(principal: Principal, id: number) {
      return yield* find(principal, id)
    })

    const update = Effect.fn("Workflows.update")(function*(principal: Principal, id: number, request: UpdateWorkflowRequest) {
      const current = yield* find(principal, id)
      const changesVersion = request.workflow_definition != null ||
        request.template_context_variables !== undefined ||
        request.workflow_configurations !== undefined
      const content = changesVersion
        ? yield* prepare({
          workflow_definition: request.workflow_definition ?? current.workflow_definition,
          template_context_variables: request.template_context_variables === undefined
            ? current.template_context_variables
            : request.template_context_variables,
          workflow_configurations: request.workflow_configurations === undefined
            ? current.workflow_configurations
            : request.workflow_configurations
        })
        : undefined
      // An update that changes nothing does not publish a version.
      const unchanged = content !== undefined &&
        JSON.stringify(content.workflow_definition) === JSON.stringify(current.workflow_definition) &&
        JSON.stringify(content.template_context_variables) === JSON.stringify(current.template_context_variables) &&
        JSON.stringify(content.workflow_configurations) === JSON.stringify(current.workflow_configurations)
      const updated = yield* repo.update({
        organization_id: principal.organizationId,
        id,
        name: request.name ?? undefined,
        content: unchanged ? undefined : content,
        now: iso(yield* Clock.currentTimeMillis)
      })
      return yield* Either.match(updated, {
        onLeft: (c) => Effect.fail(triggerConflict(c)),
        onRight: Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed })
      })
    })

    const setStatus = Effect.fn("Workflows.setStatus")(function*(principal: Principal, id: number, status: WorkflowStatus) {
      const updated = yield* repo.setStatus(principal.organizationId, id, status, iso(yield* Clock.currentTimeMillis))
      return yield* Option.match(updated, { onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed })
    })

    const versions = Effect.fn("Workflows.versions")(function*(principal: Principal, id: number) {
      yield* find(principal, id)
      return yield* repo.versions(principal.organizationId, id)
    })

    /**
     * The agent a call or campaign will run: it must be in the organization and active.
     * An archived agent is refused with 409 and told how to restore it.
     */
    const callable = Effect.fn("Workflows.callable")(function*(principal: Principal, id: number) {
      const workflow = yield* find(principal, id)
      if (workflow.status !== "active") {
        return yield* new Conflict({
          detail: `Agent ${id} is archived and cannot be called; restore it with PUT /api/v1/workflow/${id}/status {"status": "active"}`
        })
      }
      return workflow
    })

    return {
      create,
      list,
      get,
      update,
      setStatus,
      versions,
      callable,
      findByUuid: repo.findByUuid,
      findByTriggerPath: repo.findByTriggerPath,
      addDispositionCodes: repo.addDispositionCodes
    } as const
  })
}) {}
