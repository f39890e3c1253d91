/**
 * The circuit breaker's arithmetic over a sliding window of call outcomes. Failures are provider
 * failures (outcome `failed`, or an error placing the call); busy, no answer, voicemail, completed and
 * canceled calls count as working calls. It trips when the window holds at least
 * `min_calls_in_window` outcomes and the failure share reaches `failure_threshold`.
 */
import type { CircuitBreakerConfig } from "./CampaignSettings.js"

export interface BreakerOutcome {
  readonly at: number
  readonly failure: boolean
  readonly runId: number
  readonly reason: string
}

export interface BreakerResult {
  readonly trip: boolean
  readonly failureRate: number
  readonly failureCount: number
  readonly successCount: number
  readonly recentFailures: ReadonlyArray<{ readonly workflow_run_id: number; readonly reason: string; readonly ts: string }>
}

export const isBreakerFailure = (outcome: string): boolean => outcome === "failed"

export const evaluateBreaker = (
  config: Pick<CircuitBreakerConfig, "enabled" | "failure_threshold" | "window_seconds" | "min_calls_in_window">,
  outcomes: ReadonlyArray<BreakerOutcome>,
  now: number
): BreakerResult => {
  const inWindow = outcomes.filter((o) => o.at >= now - config.window_seconds * 1000 && o.at <= now)
  const failures = inWindow.filter((o) => o.failure)
  const total = inWindow.length
  const failureRate = total === 0 ? 0 : failures.length / total
  return {
    trip: config.enabled && total >= config.min_calls_in_window && failureRate >= config.failure_threshold,
    failureRate,
    failureCount: failures.length,
    successCount: total - failures.length,
    recentFailures: failures.slice(-20).map((f) => ({ workflow_run_id: f.runId, reason: f.reason, ts: new Date(f.at).toISOString() }))
  }
}

const percent = (n: number) => `${(n * 100).toFixed(2)}%`

export const breakerMessage = (
  result: BreakerResult,
  config: Pick<CircuitBreakerConfig, "failure_threshold" | "window_seconds">
): string =>
  `Paused: failure rate ${percent(result.failureRate)} (${result.failureCount}/${result.failureCount + result.successCount}) ` +
  `exceeded threshold ${percent(config.failure_threshold)} in ${config.window_seconds}s window`
