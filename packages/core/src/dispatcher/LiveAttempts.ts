/**
 * What this process keeps in memory about its calls in progress: the status events so far (written to
 * the run when the call ends) and the provider's call id. Records are immutable values in one `Ref`,
 * so the fibers that place a call, deliver its events and finish it never see a half-made change; the
 * database stays the truth (a record lost with the process is rebuilt from storage).
 */
import type {
  AttemptId,
  CampaignId,
  ContactId,
  OrganizationId,
  RunId,
  WorkflowId
} from "@agentline/api/Ids"
import { Effect, HashMap, Metric, Option, Ref, Stream, SubscriptionRef } from "effect"
import type { CircuitBreakerConfig, RetryConfig } from "@agentline/api/campaigns/CampaignSettings"
import { callLabels, callsInProgress, withLabels } from "../Telemetry.js"

/** One entry of the run's `logs.telephony_status_callbacks`. */
export interface StatusEvent {
  readonly status: string
  readonly timestamp: string
  readonly duration?: number
  /** The provider's call id the callback named. */
  readonly call_id?: string
  /** Who answered, when the provider ran answering machine detection. */
  readonly answered_by?: string
  /** On the last entry of a call that could not be placed (or whose fate is unknown): why. */
  readonly error?: string
  /** A callback that came after the call's end (a provider retry, a late or reordered one): recorded, not applied. */
  readonly ignored?: true
}

export interface LiveAttempt {
  readonly attemptId: AttemptId
  readonly organizationId: OrganizationId
  readonly campaignId: CampaignId | null
  readonly contactId: ContactId | null
  readonly workflowId: WorkflowId
  readonly runId: RunId
  readonly attemptNumber: number
  /** The campaign's settings as of the claim (changing them needs a pause, which ends the loop). */
  readonly retry: RetryConfig | undefined
  readonly breaker: CircuitBreakerConfig | undefined
  readonly provider: string
  readonly events: ReadonlyArray<StatusEvent>
  readonly providerCallId: string | null
}

export class LiveAttempts extends Effect.Service<LiveAttempts>()("@agentline/core/dispatcher/LiveAttempts", {
  effect: Effect.gen(function*() {
    const live = yield* SubscriptionRef.make(HashMap.empty<AttemptId, LiveAttempt>())
    const peak = yield* Ref.make(0)

    /** The calls-in-progress gauge of the attempt's organization and campaign, moved by `delta`. */
    const count = (attempt: LiveAttempt, delta: number) =>
      Metric.modify(withLabels(callsInProgress, callLabels(attempt.organizationId, attempt.campaignId)), delta)

    /** Keeps the record; true when this process did not have the attempt yet. */
    const track = (attempt: LiveAttempt) =>
      Effect.flatMap(
        Ref.modify(live, (all) => {
          const next = HashMap.set(all, attempt.attemptId, attempt)
          return [{ added: !HashMap.has(all, attempt.attemptId), size: HashMap.size(next) }, next] as const
        }),
        ({ added, size }) =>
          Effect.as(Effect.zipRight(Ref.update(peak, (p) => Math.max(p, size)), added ? count(attempt, 1) : Effect.void), added)
      )

    /** Applies `f` to the record, if this process has it; returns the new record. */
    const update = (attemptId: AttemptId, f: (attempt: LiveAttempt) => LiveAttempt) =>
      Ref.modify(live, (all) => {
        const found = Option.map(HashMap.get(all, attemptId), f)
        return [found, Option.isSome(found) ? HashMap.set(all, attemptId, found.value) : all] as const
      })

    /** Removes the record and returns it: of several fibers ending one call, one gets it. */
    const take = (attemptId: AttemptId) =>
      Effect.tap(
        Ref.modify(live, (all) => [HashMap.get(all, attemptId), HashMap.remove(all, attemptId)] as const),
        (taken) => (Option.isSome(taken) ? count(taken.value, -1) : Effect.void)
      )

    return {
      track,
      update,
      take,
      get: (attemptId: AttemptId) => Effect.map(Ref.get(live), HashMap.get(attemptId)),
      /** The attempts this process has in memory. */
      ids: Effect.map(Ref.get(live), (all) => Array.from(HashMap.keys(all))),
      /** Calls this process has in progress. */
      size: Effect.map(Ref.get(live), HashMap.size),
      /** The most calls this process had in progress at once, for benchmarks and tests. */
      peak: Ref.get(peak),
      /** Completes when this process has no call in progress (at once if it has none). */
      drained: live.changes.pipe(Stream.filter(HashMap.isEmpty), Stream.take(1), Stream.runDrain)
    } as const
  })
}) {}
