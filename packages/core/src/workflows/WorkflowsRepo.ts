import { Context, type Effect, type Either, type Option } from "effect"
import type { DefinitionId } from "@agentline/api/Ids"
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

/**
 * Which version of an agent to read: `published` is what campaigns, API triggers, inbound calls and the
 * public embed run; `latest` is the draft when there is one, else the published version (what the
 * editor shows, and what test calls run).
 */
export type VersionChoice = "published" | "latest"

/**
 * An agent with the content of one of its versions. `current_definition_id` is always the published
 * version; `definition_id` is the version whose content this is (a run of it records this id), and
 * `version_number`/`version_status` describe that version.
 */
export interface StoredWorkflow extends Workflow {
  readonly organization_id: number
  readonly definition_id: DefinitionId
}

/** What publishing did: the version published, or why nothing was. */
export type PublishOutcome =
  | { readonly _tag: "Published"; readonly version: WorkflowVersion }
  /** The agent has no draft. */
  | { readonly _tag: "NoDraft" }
  /** The draft is not the one named any more: a newer save replaced it meanwhile. */
  | { readonly _tag: "DraftReplaced" }

/**
 * Storage port for agents, their versions and trigger paths. Scoped by organization except lookups by
 * public id. Each agent has exactly one published version at all times and at most one draft.
 */
export class WorkflowsRepo extends Context.Tag("@agentline/core/WorkflowsRepo")<
  WorkflowsRepo,
  {
    /** Creates the agent with version 1, published, atomically with its trigger paths. */
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
    /** The agent with its published version, or with `version: "latest"` its draft if it has one. */
    readonly find: (organizationId: number, id: number, version?: VersionChoice) => Effect.Effect<Option.Option<StoredWorkflow>>
    readonly findByUuid: (workflowUuid: string, version?: VersionChoice) => Effect.Effect<Option.Option<StoredWorkflow>>
    /** The agent owning an active trigger path, whatever its organization. */
    readonly findByTriggerPath: (triggerPath: string, version?: VersionChoice) => Effect.Effect<Option.Option<StoredWorkflow>>
    /**
     * Renames and/or saves `content` as a new draft (numbered after every earlier version; the previous
     * draft, never published, becomes `archived`), atomically with the trigger paths. The published
     * version is untouched. The agent with its latest version; `None` when it is not in the organization.
     */
    readonly update: (input: {
      readonly organization_id: number
      readonly id: number
      readonly name: string | undefined
      readonly content: VersionContent | undefined
      readonly now: string
    }) => Effect.Effect<Either.Either<Option.Option<StoredWorkflow>, TriggerConflict>>
    /**
     * Publishes the draft `draftId` if it is still the agent's draft: it becomes the published version
     * and the previously published one is archived, atomically with the trigger paths (those of the new
     * published version stay active, the rest are archived). `None` when the agent is not in the organization.
     */
    readonly publish: (input: {
      readonly organization_id: number
      readonly id: number
      readonly draftId: number
      readonly now: string
    }) => Effect.Effect<Option.Option<PublishOutcome>>
    /**
     * The agent's draft; made, when there is none, as a copy of the published version (numbered after
     * every earlier version). `None` when the agent is not in the organization.
     */
    readonly createDraft: (organizationId: number, id: number, now: string) => Effect.Effect<Option.Option<WorkflowVersion>>
    readonly setStatus: (
      organizationId: number,
      id: number,
      status: WorkflowStatus,
      now: string
    ) => Effect.Effect<Option.Option<StoredWorkflow>>
    /** Every version of the agent, newest first. */
    readonly versions: (organizationId: number, id: number) => Effect.Effect<ReadonlyArray<WorkflowVersion>>
    /** Adds disposition codes learned from finished runs (kept unique, sorted). */
    readonly addDispositionCodes: (id: number, codes: ReadonlyArray<string>) => Effect.Effect<void>
  }
>() {}
