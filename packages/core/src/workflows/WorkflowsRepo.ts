import { Context, type Effect, type Either, type Option } from "effect"
import type { Workflow, WorkflowListItem, WorkflowStatus, WorkflowVersion } from "@agentline/api/workflows/Workflow"

export interface VersionContent {
  readonly workflow_definition: Record<string, unknown>
  readonly template_context_variables: Record<string, unknown> | null
  readonly workflow_configurations: Record<string, unknown> | null
  /** The definition's trigger paths, reserved for this agent (globally unique). */
  readonly trigger_paths: ReadonlyArray<string>
}

/** A trigger path another agent already owns. */
export interface TriggerConflict {
  readonly _tag: "TriggerConflict"
  readonly trigger_path: string
}

export interface StoredWorkflow extends Workflow {
  readonly organization_id: number
}

/** Storage port for agents, their versions and trigger paths. Scoped by organization except lookups by public id. */
export class WorkflowsRepo extends Context.Tag("@agentline/core/WorkflowsRepo")<
  WorkflowsRepo,
  {
    /** Creates the agent with version 1, atomically with its trigger paths. */
    readonly insert: (input: {
      readonly organization_id: number
      readonly workflow_uuid: string
      readonly name: string
      readonly content: VersionContent
      readonly now: string
    }) => Effect.Effect<Either.Either<StoredWorkflow, TriggerConflict>>
    readonly list: (
      organizationId: number,
      statuses: ReadonlyArray<WorkflowStatus>
    ) => Effect.Effect<ReadonlyArray<WorkflowListItem>>
    readonly find: (organizationId: number, id: number) => Effect.Effect<Option.Option<StoredWorkflow>>
    readonly findByUuid: (workflowUuid: string) => Effect.Effect<Option.Option<StoredWorkflow>>
    /** The agent owning an active trigger path, whatever its organization. */
    readonly findByTriggerPath: (triggerPath: string) => Effect.Effect<Option.Option<StoredWorkflow>>
    /**
     * Renames and/or publishes a new version (the previous one becomes `archived`), atomically.
     * `None` when the agent is not in the organization.
     */
    readonly update: (input: {
      readonly organization_id: number
      readonly id: number
      readonly name: string | undefined
      readonly content: VersionContent | undefined
      readonly now: string
    }) => Effect.Effect<Either.Either<Option.Option<StoredWorkflow>, TriggerConflict>>
    readonly setStatus: (
      organizationId: number,
      id: number,
      status: WorkflowStatus,
      now: string
    ) => Effect.Effect<Option.Option<StoredWorkflow>>
    readonly versions: (organizationId: number, id: number) => Effect.Effect<ReadonlyArray<WorkflowVersion>>
    /** Adds disposition codes learned from finished runs (kept unique, sorted). */
    readonly addDispositionCodes: (id: number, codes: ReadonlyArray<string>) => Effect.Effect<void>
  }
>() {}
