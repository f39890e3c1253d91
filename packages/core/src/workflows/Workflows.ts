import { Clock, Effect, Either, Option } from "effect"
import * as Crypto from "node:crypto"
import type { ValidationIssue } from "@agentline/api/Errors"
import { sameJson } from "../Json.js"
import type { Principal } from "@agentline/api/Authentication"
import { AgentArchived, InvalidWorkflowDefinition, TriggerPathTaken, WorkflowNotFound } from "./Errors.js"
import type { CreateWorkflowRequest, UpdateWorkflowRequest, WorkflowStatus } from "@agentline/api/workflows/Workflow"
import { type DefinitionIssue, validateDefinition } from "./DefinitionValidation.js"
import { mintTriggerPaths, recordingReferences, triggerPaths, type WorkflowDefinition } from "./WorkflowDefinition.js"
import { OutboundTargets, refusedTargetTemplate } from "../OutboundTargets.js"
import { RecordingsRepo } from "../recordings/RecordingsRepo.js"
import { type StoredWorkflow, type TriggerConflict, type VersionContent, WorkflowsRepo } from "./WorkflowsRepo.js"

import { iso } from "../Time.js"

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

const triggerConflict = (conflict: TriggerConflict) => new TriggerPathTaken({ triggerPath: conflict.trigger_path })

const notFound = (workflowId: number) => new WorkflowNotFound({ workflowId })

/**
 * The webhook nodes whose `endpoint_url` the rule for tenant-chosen targets refuses (the rule event
 * webhooks follow): checked at save where the scheme and host are written out, when sent otherwise.
 */
const webhookTargetIssues = (definition: WorkflowDefinition, allowPrivate: boolean): Array<DefinitionIssue> =>
  definition.nodes.flatMap((node): Array<DefinitionIssue> => {
    if (node.type !== "webhook" || typeof node.data.endpoint_url !== "string") return []
    const reason = refusedTargetTemplate(node.data.endpoint_url, allowPrivate)
    return reason === undefined ? [] : [{
      kind: "node",
      id: node.id,
      field: "endpoint_url",
      message: `endpoint_url is refused: ${reason}; webhooks go to public addresses only (the operator can allow private ones with AGENTLINE_WEBHOOK_ALLOW_PRIVATE=true)`
    }]
  })

/**
 * Validates a definition and mints missing trigger paths; 422 listing every structural problem, every
 * webhook target refused, and every recording it plays that is not an active recording of the organization.
 */
const prepare = (
  recordings: RecordingsRepo["Type"],
  targets: OutboundTargets["Type"],
  organizationId: number,
  input: Pick<VersionContent, "template_context_variables" | "workflow_configurations"> & { readonly workflow_definition: unknown }
): Effect.Effect<VersionContent, InvalidWorkflowDefinition> => Effect.gen(function*() {
  const { errors, definition } = validateDefinition(input.workflow_definition)
  if (errors.length > 0) return yield* new InvalidWorkflowDefinition({ issues: errors.map(toIssue) })
  const refused = webhookTargetIssues(definition, targets.allowPrivate)
  if (refused.length > 0) return yield* new InvalidWorkflowDefinition({ issues: refused.map(toIssue) })
  const references = recordingReferences(definition)
  if (references.length > 0) {
    const known = new Set((yield* recordings.findActive(organizationId, [...new Set(references.map((r) => r.recordingId))])).map((r) => r.recording_id))
    const missing = references.filter((r) => !known.has(r.recordingId))
    if (missing.length > 0) {
      return yield* new InvalidWorkflowDefinition({
        issues: missing.map((r) =>
          toIssue({
            kind: r.kind,
            id: r.id,
            field: r.field,
            message: `${r.kind} '${r.id}' ${r.field}: recording '${r.recordingId}' does not exist in this organization; upload it first or choose another`
          })
        )
      })
    }
  }
  const minted = mintTriggerPaths(definition, () => Crypto.randomUUID())
  return {
    workflow_definition: minted as unknown as Record<string, unknown>,
    template_context_variables: input.template_context_variables,
    workflow_configurations: input.workflow_configurations,
    trigger_paths: triggerPaths(minted)
  }
})

export class Workflows extends Effect.Service<Workflows>()("@agentline/core/Workflows", {
  effect: Effect.gen(function*() {
    const repo = yield* WorkflowsRepo
    const recordings = yield* RecordingsRepo
    const targets = yield* OutboundTargets

    const find = (principal: Principal, id: number) =>
      Effect.flatMap(repo.find(principal.organizationId, id), Option.match({
        onNone: () => Effect.fail(notFound(id)),
        onSome: (w: StoredWorkflow) => Effect.succeed(w)
      }))

    const create = Effect.fn("Workflows.create")(function*(principal: Principal, request: CreateWorkflowRequest) {
      const content = yield* prepare(recordings, targets, principal.organizationId, {
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
      // `null` means "not sent", as in the reference: it neither clears a field nor publishes a version.
      const definition = request.workflow_definition ?? undefined
      const variables = request.template_context_variables ?? undefined
      const configurations = request.workflow_configurations ?? undefined
      const content = definition !== undefined || variables !== undefined || configurations !== undefined
        ? yield* prepare(recordings, targets, principal.organizationId, {
          workflow_definition: definition ?? current.workflow_definition,
          template_context_variables: variables ?? current.template_context_variables,
          workflow_configurations: configurations ?? current.workflow_configurations
        })
        : undefined
      // An update that changes nothing publishes no version (compared as JSON: key order is not a change).
      const unchanged = content !== undefined &&
        sameJson(content.workflow_definition, current.workflow_definition) &&
        sameJson(content.template_context_variables, current.template_context_variables) &&
        sameJson(content.workflow_configurations, current.workflow_configurations)
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
        return yield* new AgentArchived({ workflowId: id })
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
