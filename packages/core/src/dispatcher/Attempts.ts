/**
 * One call attempt from claim to end: `begin` (its run, `dialing`, tracked in memory), `place` (the
 * provider gets it), `handleEvent` (normalized events from any provider) and `finish` (attempt,
 * contact, counters and run in one transaction; then the breaker, disposition codes and wake-ups).
 */
import {
  type AttemptId,
  type ContactId,
  type OrganizationId,
  WorkflowId
} from "@agentline/api/Ids"
import { Clock, Effect, Either, FiberSet, Metric, Option } from "effect"
import { CallTraces } from "../CallTraces.js"
import { callAttempts, SpanNames } from "../Telemetry.js"
import type { OutboundRoute } from "../telephony/OutboundRouting.js"
import type { CallEvent } from "../telephony/TelephonyProvider.js"
import { iso } from "../Time.js"
import * as GroupCommit from "../GroupCommit.js"
import { Transactor } from "../Transactor.js"
import type { StoredWorkflow } from "../workflows/WorkflowsRepo.js"
import { BreakerWindow } from "./BreakerWindow.js"
import { type AttemptResult, nextForContact } from "./ContactOutcome.js"
import { callDeadline } from "./Deadlines.js"
import { DispatcherSettings } from "./DispatcherSettings.js"
import { type DispatchCampaign, DispatchRepo, type OpenAttempt } from "./DispatchRepo.js"
import { type LiveAttempt, LiveAttempts, type StatusEvent } from "./LiveAttempts.js"
import { persistently } from "./Persistently.js"
import { type RunEnding, RunRecorder } from "./RunRecorder.js"
import { Wakeups } from "./Wakeups.js"

export interface CallEnd {
  readonly outcome: AttemptResult
  readonly durationSeconds: number
  readonly hangupCause?: string
  /** Why the call could not be placed or its fate learned (recorded on the run). */
  readonly error?: string
}

/** An attempt claimed for `begin`/`open`: the run's facts and the call's. */
export interface BeginInput {
  readonly attemptId: AttemptId
  readonly organizationId: OrganizationId
  readonly campaign: DispatchCampaign | undefined
  readonly contactId: ContactId | null
  readonly workflow: StoredWorkflow
  readonly attemptNumber: number
  readonly route: OutboundRoute
  readonly from: string | null
  readonly name: string
  readonly initialContext: Record<string, unknown>
  readonly at: number
  readonly callType?: "inbound" | "outbound"
}

/** The ids a call's log lines carry (`AGENTLINE_LOG_FORMAT=json` writes them as fields). */
export const logIds = (attempt: LiveAttempt | undefined): Record<string, unknown> =>
  attempt === undefined ? {} : {
    attempt_id: attempt.attemptId,
    run_id: attempt.runId,
    organization_id: attempt.organizationId,
    ...(attempt.campaignId !== null ? { campaign_id: attempt.campaignId } : {})
  }

export class Attempts extends Effect.Service<Attempts>()("@agentline/core/dispatcher/Attempts", {
  scoped: Effect.gen(function*() {
    const repo = yield* DispatchRepo
    const recorder = yield* RunRecorder
    const live = yield* LiveAttempts
    const breaker = yield* BreakerWindow
    const wakeups = yield* Wakeups
    const tx = yield* Transactor
    const settings = yield* DispatcherSettings
    const traces = yield* CallTraces
    const calls = yield* FiberSet.make()

    // Calls ending together are written together: attempts, contacts, counters and runs of a batch in a
    // few statements and one commit. Each `finish` still waits for its own end to be committed.
    const endings = yield* GroupCommit.make((batch: ReadonlyArray<RunEnding>) =>
      Effect.gen(function*() {
        const ended = yield* repo.finishAttempts(batch.map(({ attempt, end }) => ({
          attemptId: attempt.attemptId,
          outcome: end.outcome,
          durationMillis: end.durationSeconds * 1000,
          contactNext: end.contactNext,
          now: iso(end.at)
        })))
        yield* recorder.closeAll(batch.filter((_, i) => ended[i]))
        return ended
      })
    )
    const callIds = yield* GroupCommit.make((batch: ReadonlyArray<{ readonly attemptId: AttemptId; readonly providerCallId: string }>) =>
      Effect.as(repo.setProviderCallIds(batch), batch.map(() => undefined))
    )

    /**
     * Ends the attempt once: the first caller for an attempt wins (the storage write is guarded by the
     * attempt's state), later ones change nothing.
     */
    const finish = (attemptId: AttemptId, end: CallEnd, known?: LiveAttempt) =>
      Effect.gen(function*() {
        const taken = yield* live.take(attemptId)
        const attempt = Option.getOrUndefined(taken) ?? known ?? (yield* rebuild(attemptId))
        if (attempt === undefined) return
        const at = yield* Clock.currentTimeMillis
        const contactNext = attempt.contactId !== null && attempt.retry !== undefined
          ? nextForContact(end.outcome, attempt.attemptNumber, attempt.retry, at)
          : undefined
        const events = [
          ...attempt.events,
          {
            status: end.outcome === "interrupted" ? "interrupted" : "ended",
            timestamp: iso(at),
            duration: end.durationSeconds,
            // Why the call could not be placed or its fate learned: the provider's own words.
            ...(end.error !== undefined ? { error: end.error } : {})
          }
        ]
        const finished = yield* persistently(endings.write({ attempt, end: { ...end, contactNext, events, at } })).pipe(
          traces.within(attemptId, SpanNames.save)
        )
        yield* traces.end(attemptId, finished
          ? {
            "agentline.outcome": end.outcome,
            "agentline.duration_seconds": end.durationSeconds,
            ...(end.error !== undefined ? { "agentline.error": end.error } : {})
          }
          : { "agentline.already_ended": true })
        if (!finished) return
        yield* Effect.logDebug(`call ended: ${end.outcome} after ${end.durationSeconds} s`).pipe(Effect.annotateLogs(logIds(attempt)))
        yield* Metric.increment(Metric.tagged(Metric.tagged(callAttempts, "outcome", end.outcome), "provider", attempt.provider))
        yield* recorder.learnDisposition(attempt.workflowId, end.outcome)
        yield* breaker.record(attempt, end.outcome, end.error !== undefined ? "call_initiation_failed" : end.outcome)
        yield* wakeups.callEnded(attempt.organizationId, attempt.campaignId)
      }).pipe(Effect.annotateLogs({ attempt_id: attemptId }), Effect.withSpan("Dispatcher.finish", { attributes: { attemptId } }))

    /**
     * Normalized events from any provider end up here (in-process or through the callback route). A
     * `durable` event (a provider's callback over HTTP) is written to the run's log at once, so a process
     * that dies mid-call loses none of them; in-process events (the simulator) are written with the
     * call's end, in one statement.
     */
    const handleEvent = (attemptId: AttemptId, event: CallEvent, options: { readonly durable?: boolean } = {}) =>
      applyEvent(attemptId, event, options).pipe(
        Effect.annotateLogs({ attempt_id: attemptId }),
        traces.within(attemptId, SpanNames.event, {
          "agentline.event": event.type,
          "agentline.provider_call_id": event.providerCallId,
          "agentline.durable": options.durable === true
        })
      )

    const applyEvent = Effect.fnUntraced(function*(
      attemptId: AttemptId,
      event: CallEvent,
      options: { readonly durable?: boolean }
    ) {
      const entry: StatusEvent = {
        status: event.type,
        timestamp: iso(event.at),
        call_id: event.providerCallId,
        ...(event.type === "answered" && event.answeredBy !== undefined ? { answered_by: event.answeredBy } : {})
      }
      const tracked = yield* live.get(attemptId)
      let runId = Option.isSome(tracked) ? tracked.value.runId : null
      if (Option.isNone(tracked)) {
        const stored = yield* repo.findAttempt(attemptId)
        if (Option.isNone(stored)) return
        runId = stored.value.runId
        if (stored.value.state !== "claimed" && stored.value.state !== "dialing") {
          // After the end: recorded on the run, never applied (a final state is never reopened).
          const runId = stored.value.runId
          if (runId !== null) {
            yield* recorder.recordStatus(runId, {
              ...entry,
              ...(event.type === "ended" ? { outcome: event.outcome, duration: event.durationSeconds } : {}),
              ignored: true
            })
          }
          return
        }
      }
      if (event.type === "ended") {
        yield* live.update(attemptId, (a) => (a.providerCallId === null ? { ...a, providerCallId: event.providerCallId } : a))
        return yield* finish(attemptId, {
          outcome: event.outcome,
          durationSeconds: event.durationSeconds,
          ...(event.hangupCause !== undefined ? { hangupCause: event.hangupCause } : {})
        })
      }
      const durable = options.durable === true && runId !== null
      if (durable) yield* recorder.recordStatus(runId!, entry)
      const kept = durable ? [] : [entry]
      const updated = yield* live.update(attemptId, (a) => ({
        ...a,
        providerCallId: a.providerCallId ?? event.providerCallId,
        events: [...a.events, ...kept]
      }))
      // An attempt this process does not have in memory (placed before a restart or elsewhere).
      if (Option.isNone(updated)) {
        const rebuilt = yield* rebuild(attemptId)
        if (rebuilt !== undefined) {
          yield* live.track({
            ...rebuilt,
            providerCallId: rebuilt.providerCallId ?? event.providerCallId,
            events: [...rebuilt.events, ...kept]
          })
        }
      }
    })

    /** The in-memory record of an open attempt, from storage (its campaign's settings as they are now). */
    const fromStorage = (open: OpenAttempt) =>
      Effect.gen(function*() {
        if (open.runId === null) return undefined
        const campaign = open.campaignId === null ? Option.none<DispatchCampaign>() : yield* repo.loadCampaign(open.campaignId)
        const run = yield* recorder.recorded(open.runId)
        const attempt: LiveAttempt = {
          attemptId: open.id,
          organizationId: open.organizationId,
          campaignId: open.campaignId,
          contactId: open.contactId,
          workflowId: Option.match(run, { onNone: () => WorkflowId.make(0), onSome: (r) => r.workflowId }),
          runId: open.runId,
          attemptNumber: open.attemptNumber,
          retry: Option.getOrUndefined(Option.map(campaign, (c) => c.retry)),
          breaker: Option.getOrUndefined(Option.map(campaign, (c) => c.breaker)),
          provider: open.provider,
          // What the run's log already has stays there; only events from now on are kept for the final write.
          events: [],
          providerCallId: open.providerCallId
        }
        return attempt
      })

    const rebuild = (attemptId: AttemptId) =>
      Effect.flatMap(repo.findAttempt(attemptId), (found) =>
        Option.isSome(found) && (found.value.state === "claimed" || found.value.state === "dialing")
          ? fromStorage(found.value as OpenAttempt)
          : Effect.succeed(undefined))

    /**
     * What every claimed attempt goes through before the provider sees it: its run is created and the
     * attempt is marked `dialing` (from here on only the provider knows its fate). Joins the caller's
     * transaction, so a campaign's batch of claims and their runs commit together; the attempts are
     * tracked in memory with `track` once that commits.
     */
    const open = (inputs: ReadonlyArray<BeginInput>) =>
      Effect.gen(function*() {
        const runs = yield* recorder.openAll(inputs.map((input) => ({
          organizationId: input.organizationId,
          workflow: input.workflow,
          campaignId: input.campaign?.id ?? null,
          name: input.name,
          provider: input.route.provider.name,
          initialContext: input.initialContext,
          at: input.at,
          ...(input.callType !== undefined ? { callType: input.callType } : {})
        })))
        yield* repo.markDialing(inputs.map((input, i) => ({
          attemptId: input.attemptId,
          runId: runs[i]!.id,
          from: input.from,
          reconcileAt: iso(callDeadline(input.at, input.workflow.workflow_configurations, settings.reconcileMarginSeconds))
        })))
        return inputs.map((input, i) => {
          const attempt: LiveAttempt = {
            attemptId: input.attemptId,
            organizationId: input.organizationId,
            campaignId: input.campaign?.id ?? null,
            contactId: input.contactId,
            workflowId: WorkflowId.make(input.workflow.id),
            runId: runs[i]!.id,
            attemptNumber: input.attemptNumber,
            retry: input.campaign?.retry,
            breaker: input.campaign?.breaker,
            provider: input.route.provider.name,
            events: [],
            providerCallId: null
          }
          return { attempt, run: runs[i]! }
        })
      })

    /**
     * `open` for one attempt in its own transaction, then tracked. One unit: a run exists exactly when
     * the attempt is `dialing`; when it fails the claim is released, so a refused write never keeps a slot.
     */
    const begin = (input: BeginInput) =>
      Effect.gen(function*() {
        const [begun] = yield* tx.withTransaction(open([input])).pipe(
          Effect.onError(() => persistently(repo.releaseClaimed(input.attemptId)).pipe(Effect.catchAllCause(Effect.logError)))
        )
        yield* track(begun!.attempt, input.callType ?? "outbound")
        return begun!
      })

    /** Keeps the attempt in memory and, the first time, starts its call's trace. */
    const track = (attempt: LiveAttempt, direction: "inbound" | "outbound" = "outbound") =>
      Effect.flatMap(live.track(attempt), (added) =>
        added
          ? traces.start({
            attemptId: attempt.attemptId,
            runId: attempt.runId,
            organizationId: attempt.organizationId,
            campaignId: attempt.campaignId,
            provider: attempt.provider,
            direction
          })
          : Effect.void)

    /** Hands the call to the provider; a refusal ends the attempt `failed` at once. */
    const place = (attempt: LiveAttempt, route: OutboundRoute, to: string, from: string | null) =>
      Effect.gen(function*() {
        const placed = yield* route.calls.place({
          to,
          from: from ?? undefined,
          attemptId: attempt.attemptId,
          onEvent: (event, options) => handleEvent(attempt.attemptId, event, options).pipe(Effect.catchAllCause(Effect.logError))
        }).pipe(Effect.either, traces.within(attempt.attemptId, SpanNames.dial, { "agentline.provider": attempt.provider }))
        if (Either.isLeft(placed)) {
          // Adapters word their errors without credentials (docs/telephony-adapters.md); the contract suite checks it.
          yield* Effect.logWarning(`attempt ${attempt.attemptId} not placed through ${attempt.provider}: ${placed.left.message}`)
          yield* finish(attempt.attemptId, { outcome: "failed", durationSeconds: 0, error: placed.left.message }, attempt)
          return Either.left(placed.left.message)
        }
        yield* rememberCallId(attempt.attemptId, placed.right.providerCallId)
        return Either.right(placed.right.providerCallId)
      }).pipe(Effect.annotateLogs(logIds(attempt)))

    /** The provider's id of the attempt's call, in memory and in storage (recovery asks the provider by it). */
    const rememberCallId = (attemptId: AttemptId, providerCallId: string) =>
      Effect.zipRight(
        live.update(attemptId, (a) => (a.providerCallId === null ? { ...a, providerCallId } : a)),
        persistently(callIds.write({ attemptId, providerCallId }))
      )

    /**
     * `place` on its own fiber, tied to the dispatcher's lifetime (campaign calls). Interruptible even
     * when forked from an uninterruptible step: the provider's fibers inherit it and must stop at shutdown.
     */
    const dial = (attempt: LiveAttempt, route: OutboundRoute, to: string, from: string | null) =>
      FiberSet.run(calls, Effect.interruptible(place(attempt, route, to, from)))

    return { open, begin, track, place, dial, handleEvent, finish, fromStorage, rememberCallId } as const
  }),
  dependencies: [LiveAttempts.Default, BreakerWindow.Default, RunRecorder.Default, Wakeups.Default, CallTraces.Default]
}) {}
