/**
 * The run of each call attempt: created when the attempt is handed to the provider, completed with the
 * call's outcome, tags and status events when it ends. Outcomes become the agent's disposition codes
 * (remembered per agent, so each is written once per process).
 */
import { type CampaignId, type OrganizationId, RunId, WorkflowId } from "@agentline/api/Ids"
import { Effect, Option } from "effect"
import { RunsRepo } from "../runs/RunsRepo.js"
import { iso } from "../Time.js"
import { PostCall } from "../webhooks/PostCall.js"
import { runStartedData } from "../webhooks/WebhookEvents.js"
import { WebhookOutbox } from "../webhooks/WebhookOutbox.js"
import { WorkflowsRepo } from "../workflows/WorkflowsRepo.js"
import type { StoredWorkflow } from "../workflows/WorkflowsRepo.js"
import { type AttemptResult, callTags, type ContactNext } from "./ContactOutcome.js"
import type { LiveAttempt, StatusEvent } from "./LiveAttempts.js"

export interface RunEnd {
  readonly outcome: AttemptResult
  readonly durationSeconds: number
  readonly hangupCause?: string
  readonly error?: string
  readonly contactNext: ContactNext | undefined
  readonly events: ReadonlyArray<StatusEvent>
  readonly at: number
}

export class RunRecorder extends Effect.Service<RunRecorder>()("@agentline/core/dispatcher/RunRecorder", {
  effect: Effect.gen(function*() {
    const runs = yield* RunsRepo
    const workflows = yield* WorkflowsRepo
    const outbox = yield* WebhookOutbox
    const postCall = yield* PostCall
    const knownDispositions = new Map<WorkflowId, Set<string>>()

    const open = (input: {
      readonly organizationId: OrganizationId
      readonly workflow: StoredWorkflow
      readonly campaignId: CampaignId | null
      readonly name: string
      readonly provider: string
      readonly initialContext: Record<string, unknown>
      readonly at: number
      /** Who called: us (`outbound`, the default) or the caller (`inbound`). */
      readonly callType?: "inbound" | "outbound"
    }) =>
      Effect.gen(function*() {
        const run = yield* runs.insert({
          organization_id: input.organizationId,
          workflow_id: input.workflow.id,
          campaign_id: input.campaignId,
          definition_id: input.workflow.current_definition_id,
          name: input.name,
          mode: input.provider,
          call_type: input.callType ?? "outbound",
          initial_context: input.initialContext,
          gathered_context: null,
          logs: null,
          now: iso(input.at)
        })
        // In the caller's transaction: the event exists exactly when the run does.
        yield* outbox.emit({
          organizationId: input.organizationId,
          type: "run.started",
          orderingKey: `run:${run.id}`,
          at: iso(input.at),
          data: runStartedData(run)
        })
        return { id: RunId.make(run.id), name: run.name }
      })

    /**
     * Writes the call's end into its run (inside the caller's transaction, with the attempt's end): the
     * outcome, and the status events not written yet appended to the log (the rest of `logs` is kept).
     */
    const close = (attempt: LiveAttempt, end: RunEnd) =>
      Effect.gen(function*() {
        const updated = yield* runs.update(attempt.runId, {
        is_completed: true,
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
      }, iso(end.at))
        // run.ended and the agent's webhook nodes, now if the media session (if any) is over already.
        if (Option.isSome(updated)) yield* postCall.complete(attempt.runId)
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

    return { open, close, learnDisposition, recorded, recordStatus } as const
  })
}) {}
