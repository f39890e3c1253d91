import { describe, expect, it } from "@effect/vitest"
import { breakerMessage, evaluateBreaker, isBreakerFailure } from "../../src/campaigns/CircuitBreaker.js"

const config = { enabled: true, failure_threshold: 0.5, window_seconds: 120, min_calls_in_window: 5 }
const outcomes = (failures: number, successes: number, at = 1_000_000) => [
  ...Array.from({ length: failures }, (_, i) => ({ at, failure: true, runId: i, reason: "failed" })),
  ...Array.from({ length: successes }, (_, i) => ({ at, failure: false, runId: 100 + i, reason: "busy" }))
]

describe("evaluateBreaker", () => {
  it.each([
    [3, 2, true],
    [2, 3, false],
    [5, 0, true],
    [4, 0, false], // fewer than min_calls_in_window
    [0, 10, false]
  ])("%i failures and %i other outcomes → trip %s", (f, s, trip) => {
    expect(evaluateBreaker(config, outcomes(f, s), 1_000_000).trip).toBe(trip)
  })
  it("only counts the window", () => {
    const old = outcomes(5, 0, 1_000_000 - 121_000)
    expect(evaluateBreaker(config, old, 1_000_000).trip).toBe(false)
  })
  it("a disabled breaker never trips", () => {
    expect(evaluateBreaker({ ...config, enabled: false }, outcomes(10, 0), 1_000_000).trip).toBe(false)
  })
  it("reports the rate, counts and the last 20 failures, in words too", () => {
    const result = evaluateBreaker(config, outcomes(30, 10), 1_000_000)
    expect(result).toMatchObject({ failureRate: 0.75, failureCount: 30, successCount: 10 })
    expect(result.recentFailures).toHaveLength(20)
    expect(breakerMessage(result, config)).toBe("Paused: failure rate 75.00% (30/40) exceeded threshold 50.00% in 120s window")
  })
  it("failures are provider failures only", () => {
    expect(["completed", "busy", "no_answer", "voicemail", "failed", "canceled"].filter(isBreakerFailure)).toEqual(["failed"])
  })
})
