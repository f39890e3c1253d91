import { Context, type Effect, type Option } from "effect"
import type { StoredRun } from "./Run.js"

export interface NewRun extends
  Pick<
    StoredRun,
    | "organization_id"
    | "workflow_id"
    | "campaign_id"
    | "definition_id"
    | "name"
    | "mode"
    | "call_type"
    | "initial_context"
    | "gathered_context"
    | "logs"
  >
{
  readonly now: string
}

export interface RunPatch {
  readonly is_completed?: boolean
  readonly gathered_context?: Record<string, unknown> | null
  readonly cost_info?: Record<string, unknown> | null
  readonly usage_info?: Record<string, unknown> | null
  readonly logs?: Record<string, unknown> | null
  readonly initial_context?: Record<string, unknown> | null
  readonly annotations?: Record<string, unknown> | null
  readonly artifacts?: Partial<StoredRun["artifacts"]>
  /** Entries appended to `logs.telephony_status_callbacks` (the rest of `logs` is kept), in the same statement. */
  readonly statusCallbacks?: ReadonlyArray<Record<string, unknown>>
  /**
   * Top-level keys written over the stored object's (the rest is kept). The voice runtime and the
   * dispatcher both finish a call's run, in either order; each merges its own keys.
   */
  readonly merge?: Partial<Record<MergeableColumn, Record<string, unknown>>>
  /** Top-level keys written only where the stored object has none (applied before `merge`). */
  readonly defaults?: Partial<Record<MergeableColumn, Record<string, unknown>>>
}

/** The JSON columns a patch may merge into instead of replacing. */
export type MergeableColumn = "gathered_context" | "usage_info" | "cost_info" | "logs"

/** Storage port for runs. */
export class RunsRepo extends Context.Tag("@agentline/core/RunsRepo")<
  RunsRepo,
  {
    /** Inserts the run and counts it in its agent's `total_runs`, atomically. */
    readonly insert: (run: NewRun) => Effect.Effect<StoredRun>
    /** Inserts the runs (one statement) and counts them in their agents' `total_runs`, atomically; in order. */
    readonly insertAll: (runs: ReadonlyArray<NewRun>) => Effect.Effect<ReadonlyArray<StoredRun>>
    readonly list: (
      organizationId: number,
      filter: { readonly workflowId: number } | { readonly campaignId: number },
      page: { readonly offset: number; readonly limit: number }
    ) => Effect.Effect<{ readonly runs: ReadonlyArray<StoredRun>; readonly total: number }>
    readonly find: (organizationId: number, id: number) => Effect.Effect<Option.Option<StoredRun>>
    /** By id alone: only for links whose signature was verified. */
    readonly findById: (id: number) => Effect.Effect<Option.Option<StoredRun>>
    readonly update: (id: number, patch: RunPatch, now: string) => Effect.Effect<Option.Option<StoredRun>>
    /**
     * Appends `entries` to the run's `logs.telephony_status_callbacks` in one statement, leaving the
     * rest of `logs` alone (callbacks of a call may arrive at several processes at once; none is lost).
     */
    readonly appendStatusCallbacks: (id: number, entries: ReadonlyArray<Record<string, unknown>>) => Effect.Effect<void>
    /** Records that the run's media session (the call's audio, the voice runtime) started or ended. */
    readonly markMedia: (id: number, edge: "started" | "ended", now: string) => Effect.Effect<void>
    /**
     * Takes the run's post-call work, once: the run is completed and its media session, if one started,
     * has ended (`force`: whatever became of the session). `None` when not yet, or already taken.
     */
    readonly claimPostCall: (id: number, now: string, force: boolean) => Effect.Effect<Option.Option<StoredRun>>
    /** `claimPostCall` (not forced) for several runs in one statement: the runs it took. */
    readonly claimPostCalls: (ids: ReadonlyArray<number>, now: string) => Effect.Effect<ReadonlyArray<StoredRun>>
    /**
     * Completes the runs of calls that ended together, in one statement: each one's `merge`, `defaults`
     * and `statusCallbacks` applied as `update` applies them. Returns the ids of the runs that exist.
     */
    readonly completeAll: (
      patches: ReadonlyArray<{ readonly id: number } & Pick<RunPatch, "merge" | "defaults" | "statusCallbacks">>,
      now: string
    ) => Effect.Effect<ReadonlyArray<number>>
    /** Completed runs whose post-call work is not taken, last written before `before`: sessions that never ended. */
    readonly awaitingPostCall: (before: string, limit: number) => Effect.Effect<ReadonlyArray<number>>
  }
>() {}
