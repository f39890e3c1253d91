import { Clock, Effect, Either, Option } from "effect"
import * as Crypto from "node:crypto"
import type { ValidationIssue } from "@agentline/api/Errors"
import { sameJson } from "../Json.js"
import type { Principal } from "@agentline/api/Authentication"
import {
  AgentArchived,
  DefinitionNotPublishable,
  DraftReplaced,
  InvalidWorkflowDefinition,
  NoDraftToPublish,
  TriggerPathTaken,
  WorkflowNotFound
} from "./Errors.js"
import type { CreateWorkflowRequest, UpdateWorkflowRequest, WorkflowStatus } from "@agentline/api/workflows/Workflow"
import { type DefinitionIssue, validateDefinition } from "./DefinitionValidation.js"
import { mintTriggerPaths, recordingReferences, triggerPaths, type WorkflowDefinition } from "./WorkflowDefinition.js"
import { ListedTools } from "./ListedTools.js"
import { OutboundTargets, refusedTargetTemplate } from "../OutboundTargets.js"
import { PlayableRecordings } from "./PlayableRecordings.js"
import { type StoredWorkflow, type TriggerConflict, type VersionChoice, type VersionContent, WorkflowsRepo } from "./WorkflowsRepo.js"

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
 * webhook target refused, every recording it plays that is not an active recording of the organization
 * and every tool its nodes list that is not an active tool of the organization (`ListedTools`).
 */
const prepare = (
  recordings: PlayableRecordings["Type"],
  tools: ListedTools["Type"],
  targets: OutboundTargets["Type"],
  organizationId: number,
  input: Pick<VersionContent, "template_context_variables" | "workflow_configurations"> & { readonly workflow_definition: unknown }
): Effect.Effect<VersionContent, InvalidWorkflowDefinition> => Effect.gen(function*() {
  const { errors, definition } = validateDefinition(input.workflow_definition)
  if (errors.length > 0) return yield* new InvalidWorkflowDefinition({ issues: errors.map(toIssue) })
  const problems: Array<DefinitionIssue> = webhookTargetIssues(definition, targets.allowPrivate)
  const references = recordingReferences(definition)
  if (references.length > 0) {
    const known = yield* recordings.active(organizationId, [...new Set(references.map((r) => r.recordingId))])
    const missing = references.filter((r) => !known.has(r.recordingId))
    problems.push(...missing.map((r): DefinitionIssue => ({
      kind: r.kind,
      id: r.id,
      field: r.field,
      message: `${r.kind} '${r.id}' ${r.field}: recording '${r.recordingId}' does not exist in this organization; upload it first or choose another`
    })))
  }
  problems.push(...(yield* tools.problems(organizationId, definition)))
  if (problems.length > 0) return yield* new InvalidWorkflowDefinition({ issues: problems.map(toIssue) })
  const minted = mintTriggerPaths(definition, () => Crypto.randomUUID())
  return {
    workflow_definition: minted,
    template_context_variables: input.template_context_variables,
    workflow_configurations: input.workflow_configurations,
    trigger_paths: triggerPaths(minted)
  }
})

/** A definition problem in the reference's shape, from the validation item that carries it. */
const problemOf = (issue: ValidationIssue): DefinitionNotPublishable["problems"][number] => ({
  kind: issue.kind ?? "workflow",
  id: issue.id ?? null,
  field: issue.field ?? null,
  message: issue.message ?? issue.msg
})

/**
 * Agents and their versions (docs/agents.md): a save makes a draft, publishing makes the draft what
 * campaigns, API triggers, inbound calls and the embed run. Every draft is checked as fully as a
 * published version when it is saved, because test calls run it; publishing checks it again, for what
 * may have changed since it was saved (a recording it plays deleted, stricter checks of a newer server).
 */
export class Workflows extends Effect.Service<Workflows>()("@agentline/core/Workflows", {
  effect: Effect.gen(function*() {
    const repo = yield* WorkflowsRepo
    const recordings = yield* PlayableRecordings
    const tools = yield* ListedTools
    const targets = yield* OutboundTargets

    const find = (principal: Principal, id: number, version: VersionChoice = "published") =>
      Effect.flatMap(repo.find(principal.organizationId, id, version), Option.match({
        onNone: () => Effect.fail(notFound(id)),
        onSome: (w: StoredWorkflow) => Effect.succeed(w)
      }))

    /** The checks a published version must pass, on `workflow`'s content; every problem found. */
    const check = (principal: Principal, workflow: StoredWorkflow) =>
      prepare(recordings, tools, targets, principal.organizationId, workflow).pipe(
        Effect.asVoid,
        Effect.mapError((invalid) => new DefinitionNotPublishable({ workflowId: workflow.id, problems: invalid.issues.map(problemOf) }))
      )

    const create = Effect.fn("Workflows.create")(function*(principal: Principal, request: CreateWorkflowRequest) {
      const content = yield* prepare(recordings, tools, targets, principal.organizationId, {
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

    /** The agent as the editor shows it: its draft when it has one, else its published version. */
    const get = Effect.fn("Workflows.get")(function*(principal: Principal, id: number) {
      return yield* find(principal, id, "latest")
    })

    /**
     * Renames the agent and/or saves a new draft from the latest version with the fields sent replaced.
     * The published version is untouched.
     */
    const update = Effect.fn("Workflows.update")(function*(principal: Principal, id: number, request: UpdateWorkflowRequest) {
      const current = yield* find(principal, id, "latest")
      // `null` means "not sent", as in the reference: it neither clears a field nor saves a version.
      const definition = request.workflow_definition ?? undefined
      const variables = request.template_context_variables ?? undefined
      const configurations = request.workflow_configurations ?? undefined
      const content = definition !== undefined || variables !== undefined || configurations !== undefined
        ? yield* prepare(recordings, tools, targets, principal.organizationId, {
          workflow_definition: definition ?? current.workflow_definition,
          template_context_variables: variables ?? current.template_context_variables,
          workflow_configurations: configurations ?? current.workflow_configurations
        })
        : undefined
      // An update that changes nothing saves no version (compared as JSON: key order is not a change).
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
     * Publishes the agent's draft, once it passes the checks: the previously published version is
     * archived, and the next campaign call, API trigger, inbound call and embed session run the draft.
     */
    const publish = Effect.fn("Workflows.publish")(function*(principal: Principal, id: number) {
      const latest = yield* find(principal, id, "latest")
      if (latest.version_status !== "draft") return yield* new NoDraftToPublish({ workflowId: id })
      yield* check(principal, latest)
      const outcome = yield* repo.publish({
        organization_id: principal.organizationId,
        id,
        draftId: latest.definition_id,
        now: iso(yield* Clock.currentTimeMillis)
      })
      if (Option.isNone(outcome)) return yield* notFound(id)
      switch (outcome.value._tag) {
        case "NoDraft":
          return yield* new NoDraftToPublish({ workflowId: id })
        case "DraftReplaced":
          return yield* new DraftReplaced({ workflowId: id })
        case "Published": {
          const version = outcome.value.version
          return { id: version.id, version_number: version.version_number, status: "published" as const, published_at: version.published_at! }
        }
      }
    })

    /** The agent's draft, made from the published version when there is none (the reference's create-draft). */
    const createDraft = Effect.fn("Workflows.createDraft")(function*(principal: Principal, id: number) {
      const draft = yield* repo.createDraft(principal.organizationId, id, iso(yield* Clock.currentTimeMillis))
      return yield* Option.match(draft, { onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed })
    })

    /** Whether the latest version (the draft when there is one) would pass the checks of publishing. */
    const validate = Effect.fn("Workflows.validate")(function*(principal: Principal, id: number) {
      yield* check(principal, yield* find(principal, id, "latest"))
      return { is_valid: true, errors: [] }
    })

    /**
     * The agent a campaign will run, with its published version: it must be in the organization and
     * active. An archived agent is refused with 409 and told how to restore it.
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
      publish,
      createDraft,
      validate,
      callable,
      findByUuid: repo.findByUuid,
      findByTriggerPath: repo.findByTriggerPath,
      addDispositionCodes: repo.addDispositionCodes
    } as const
  })
}) {}
