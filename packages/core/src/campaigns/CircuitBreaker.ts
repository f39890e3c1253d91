/**
 * The circuit breaker's arithmetic over a sliding window of call outcomes. It exists to stop a campaign
 * that is burning through its contact list against a broken trunk or provider, so only provider failures
 * count against it (outcome `failed`, or an error placing the call). Busy, no answer, voicemail,
 * completed and canceled calls show the line works, so they count as successes; an `interrupted` call
 * (fate unknown after a crash) is not a provider verdict and is not recorded at all by the dispatcher.
 *
 * It trips when the window [now − window_seconds, now] holds at least `min_calls_in_window` outcomes and
 * the failure share reaches `failure_threshold`. A disabled breaker reports the same numbers but never trips.
 */
import type { CircuitBreakerConfig } from "@agentline/api/campaigns/CampaignSettings"

export interface BreakerOutcome {
  /** Epoch millis when the call ended. */
  readonly at: number
  readonly failure: boolean
  readonly runId: number
  readonly reason: string
}

export interface RecentFailure {
  readonly workflow_run_id: number
  readonly reason: string
  readonly ts: string
}

export interface BreakerResult {
  readonly trip: boolean
  /** failures / outcomes in the window; 0 for an empty window. */
  readonly failureRate: number
  readonly failureCount: number
  readonly successCount: number
  /** The latest failures in the window (at most 20), oldest first: what the log entry shows. */
  readonly recentFailures: ReadonlyArray<RecentFailure>
}

export const RECENT_FAILURES_LIMIT = 20

/**
 * Whether a finished call counts against the breaker. A call that could not be placed ends with outcome
 * `failed` too (the dispatcher records reason `call_initiation_failed`), so one rule covers both.
 */
export const isBreakerFailure = (outcome: string): boolean => outcome === "failed"

export const evaluateBreaker = (
  config: Pick<CircuitBreakerConfig, "enabled" | "failure_threshold" | "window_seconds" | "min_calls_in_window">,
  outcomes: ReadonlyArray<BreakerOutcome>,
  now: number
): BreakerResult => {
  const since = now - config.window_seconds * 1000
  const inWindow = outcomes.filter((o) => o.at >= since && o.at <= now)
  // Callers may append out of order (calls ending on different fibers); "recent" is by time, then run.
  const failures = inWindow.filter((o) => o.failure).sort((a, b) =>
    a.at - b.at || a.runId - b.runId || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0)
  )
  const total = inWindow.length
  const failureRate = total === 0 ? 0 : failures.length / total
  return {
    trip: config.enabled && total >= config.min_calls_in_window && failureRate >= config.failure_threshold,
    failureRate,
    failureCount: failures.length,
    successCount: total - failures.length,
    recentFailures: failures.slice(-RECENT_FAILURES_LIMIT).map((f) => ({
      workflow_run_id: f.runId,
      reason: f.reason,
      ts: new Date(f.at).toISOString()
    }))
  }
}

const percent = (n: number) => `${(n * 100).toFixed(2)}%`

/** The log message of a trip, e.g. "Paused: failure rate 60.00% (3/5) exceeded threshold 50.00% in 120s window". */
export const breakerMessage = (
  result: Pick<BreakerResult, "failureRate" | "failureCount" | "successCount">,
  config: Pick<CircuitBreakerConfig, "failure_threshold" | "window_seconds">
): string =>
  `Paused: failure rate ${percent(result.failureRate)} (${result.failureCount}/${result.failureCount + result.successCount}) ` +
  `exceeded threshold ${percent(config.failure_threshold)} in ${config.window_seconds}s window`
