/**
 * The circuit breaker's memory: the recent outcomes of each campaign this process dials, and the trip.
 * The arithmetic is `campaigns/CircuitBreaker.ts`; the trip is the campaign's `trip_breaker`
 * transition (running → paused) with a log entry that says why.
 */
import type { CampaignId, RunId } from "@agentline/api/Ids"
import { Clock, Effect } from "effect"
import { logEntry } from "../campaigns/CampaignLog.js"
import { CampaignTransitions } from "../campaigns/CampaignTransitions.js"
import { type BreakerOutcome, breakerMessage, evaluateBreaker, isBreakerFailure } from "../campaigns/CircuitBreaker.js"
import type { AttemptResult } from "./ContactOutcome.js"
import type { LiveAttempt } from "./LiveAttempts.js"
import { Wakeups } from "./Wakeups.js"

export class BreakerWindow extends Effect.Service<BreakerWindow>()("@agentline/core/dispatcher/BreakerWindow", {
  effect: Effect.gen(function*() {
    const transitions = yield* CampaignTransitions
    const wakeups = yield* Wakeups
    const windows = new Map<CampaignId, ReadonlyArray<BreakerOutcome>>()

    /** A fresh window (the campaign's loop starts: after a start, a resume or a takeover). */
    const reset = (campaignId: CampaignId) => Effect.sync(() => windows.delete(campaignId))

    /** Counts a finished call of a campaign and pauses the campaign when the breaker trips. */
    const record = (attempt: LiveAttempt, outcome: AttemptResult, reason: string) =>
      Effect.gen(function*() {
        const config = attempt.breaker
        // `interrupted` (fate unknown) is no verdict on the line.
        if (attempt.campaignId === null || outcome === "interrupted" || config === undefined || !config.enabled) return
        const campaignId = attempt.campaignId
        const at = yield* Clock.currentTimeMillis
        const window = [
          ...(windows.get(campaignId) ?? []).filter((o) => o.at > at - config.window_seconds * 1000),
          { at, failure: isBreakerFailure(outcome), runId: attempt.runId as RunId, reason }
        ]
        windows.set(campaignId, window)
        const result = evaluateBreaker(config, window, at)
        if (!result.trip) return
        const tripped = yield* transitions.apply({
          campaignId,
          action: "trip_breaker",
          log: logEntry(at, "warning", "circuit_breaker_tripped", breakerMessage(result, config), {
            failure_rate: result.failureRate,
            failure_count: result.failureCount,
            success_count: result.successCount,
            threshold: config.failure_threshold,
            window_seconds: config.window_seconds,
            min_calls_in_window: config.min_calls_in_window,
            recent_failures: result.recentFailures
          })
        })
        if (tripped._tag === "Some") {
          windows.delete(campaignId)
          yield* wakeups.wakeOrganization(attempt.organizationId)
        }
      })

    return { reset, record } as const
  }),
  dependencies: [Wakeups.Default]
}) {}
