/**
 * The run of each call attempt: created when the attempt is handed to the provider, completed with the
 * call's outcome, tags and status events when it ends. Outcomes become the agent's disposition codes
 * (remembered per agent, so each is written once per process).
 */
import { type CampaignId, type OrganizationId, RunId, WorkflowId } from "@agentline/api/Ids"
import { Effect, Option } from "effect"
import { RunsRepo } from "../runs/RunsRepo.js"
import { iso } from "../Time.js"
import { PostCall } from "../runs/PostCall.js"
import { runStartedData } from "../webhooks/WebhookEvents.js"
import { WebhookOutbox } from "../webhooks/WebhookOutbox.js"
import { WorkflowsRepo } from "../workflows/WorkflowsRepo.js"
import type { StoredWorkflow } from "../workflows/WorkflowsRepo.js"
import { type AttemptResult, callTags, type ContactNext } from "./ContactOutcome.js"
import type { LiveAttempt, StatusEvent } from "./LiveAttempts.js"

export interface NewRunInput {
  readonly organizationId: OrganizationId
  readonly workflow: StoredWorkflow
  readonly campaignId: CampaignId | null
  readonly name: string
  readonly provider: string
  readonly initialContext: Record<string, unknown>
  readonly at: number
  /** Who called: us (`outbound`, the default) or the caller (`inbound`). */
  readonly callType?: "inbound" | "outbound"
}

export interface RunEnd {
  readonly outcome: AttemptResult
  readonly durationSeconds: number
  readonly hangupCause?: string
  readonly error?: string
  readonly contactNext: ContactNext | undefined
  readonly events: ReadonlyArray<StatusEvent>
  readonly at: number
}

/** A call's end as its run records it. */
export interface RunEnding {
  readonly attempt: LiveAttempt
  readonly end: RunEnd
}

export class RunRecorder extends Effect.Service<RunRecorder>()("@agentline/core/dispatcher/RunRecorder", {
  effect: Effect.gen(function*() {
    const runs = yield* RunsRepo
    const workflows = yield* WorkflowsRepo
    const outbox = yield* WebhookOutbox
    const postCall = yield* PostCall
    const knownDispositions = new Map<WorkflowId, Set<string>>()

    /** Creates the runs of attempts handed to the provider together (in the caller's transaction), in order. */
    const openAll = (inputs: ReadonlyArray<NewRunInput>) =>
      Effect.gen(function*() {
        const inserted = yield* runs.insertAll(inputs.map((input) => ({
          organization_id: input.organizationId,
          workflow_id: input.workflow.id,
          campaign_id: input.campaignId,
          // The version the call runs: the published one, or a test call's draft.
          definition_id: input.workflow.definition_id,
          name: input.name,
          mode: input.provider,
          call_type: input.callType ?? "outbound",
          initial_context: input.initialContext,
          gathered_context: null,
          logs: null,
          now: iso(input.at)
        })))
        // In the caller's transaction: the event exists exactly when the run does.
        yield* outbox.emitAll(inserted.map((run) => ({
          organizationId: run.organization_id,
          type: "run.started" as const,
          orderingKey: `run:${run.id}`,
          at: run.created_at,
          data: runStartedData(run)
        })))
        return inserted.map((run) => ({ id: RunId.make(run.id), name: run.name }))
      })

    /**
     * Writes the ends of calls into their runs (inside the caller's transaction, with the attempts' ends):
     * the outcome, and the status events not written yet appended to the log (the rest of `logs` is
     * kept). Then the post-call work of those whose media session (if any) is over already.
     */
    const closeAll = (ends: ReadonlyArray<RunEnding>) =>
      Effect.gen(function*() {
        if (ends.length === 0) return
        const closed = yield* runs.completeAll(ends.map(({ attempt, end }) => ({
          id: attempt.runId,
          // Merged: the voice runtime writes the conversation's keys to the same run, before or after this.
          merge: {
            gathered_context: {
              outcome: end.outcome,
              provider: attempt.provider,
              call_id: attempt.providerCallId,
              ...(end.hangupCause !== undefined ? { hangup_cause: end.hangupCause } : {}),
              ...(end.error !== undefined ? { error: end.error } : {}),
              ...(end.contactNext?._tag === "Retry" ? { retry_scheduled_at: iso(end.contactNext.at) } : {})
            },
            usage_info: { call_duration_seconds: end.durationSeconds },
            cost_info: { call_duration_seconds: Math.round(end.durationSeconds) }
          },
          // The disposition the conversation gave wins over the call's outcome.
          defaults: {
            gathered_context: {
              call_disposition: end.outcome,
              mapped_call_disposition: end.outcome,
              call_tags: callTags(end.outcome, attempt.attemptNumber)
            }
          },
          statusCallbacks: end.events.map((e) => ({ ...e }))
        })), iso(Math.max(...ends.map(({ end }) => end.at))))
        // run.ended and the agents' webhook nodes.
        yield* postCall.completeAll(closed)
      })

    /** Adds the outcome to the agent's disposition codes the first time this process sees it. */
    const learnDisposition = (workflowId: WorkflowId, outcome: AttemptResult) =>
      Effect.suspend(() => {
        const known = knownDispositions.get(workflowId) ?? new Set<string>()
        knownDispositions.set(workflowId, known)
        if (known.has(outcome)) return Effect.void
        known.add(outcome)
        return workflows.addDispositionCodes(workflowId, [outcome])
      })

    /** The run's agent (for an attempt rebuilt from storage). */
    const recorded = (runId: RunId) =>
      Effect.map(runs.findById(runId), Option.map((run) => ({ workflowId: WorkflowId.make(run.workflow_id) })))

    /** One more entry of the run's `logs.telephony_status_callbacks`, appended in storage. */
    const recordStatus = (runId: RunId, entry: StatusEvent) => runs.appendStatusCallbacks(runId, [{ ...entry }])

    return { openAll, closeAll, learnDisposition, recorded, recordStatus } as const
  })
}) {}
