import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { defaultCircuitBreaker } from "@agentline/api/campaigns/CampaignSettings"
import { type BreakerOutcome, breakerMessage, evaluateBreaker, isBreakerFailure } from "../../src/campaigns/CircuitBreaker.js"

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0)
const config = { enabled: true, failure_threshold: 0.5, window_seconds: 120, min_calls_in_window: 5 }

let nextRun = 1
const failure = (at = NOW, reason = "failed"): BreakerOutcome => ({ at, failure: true, runId: nextRun++, reason })
const success = (at = NOW, reason = "busy"): BreakerOutcome => ({ at, failure: false, runId: nextRun++, reason })
const many = (n: number, make: () => BreakerOutcome) => Array.from({ length: n }, () => make())

describe("isBreakerFailure", () => {
  it.each([
    ["failed", true],
    ["completed", false],
    ["busy", false],
    ["no_answer", false],
    ["voicemail", false],
    ["canceled", false],
    ["interrupted", false]
  ] as const)("%s → %s", (outcome, expected) => {
    expect(isBreakerFailure(outcome)).toBe(expected)
  })
})

describe("evaluateBreaker", () => {
  // [failures, successes, config changes, trips?]
  it.each([
    [3, 2, {}, true], // 60% of 5
    [2, 3, {}, false], // 40%
    [3, 3, {}, true], // exactly the threshold trips
    [5, 0, {}, true],
    [4, 0, {}, false], // 100% but fewer than min_calls_in_window
    [0, 10, {}, false],
    [0, 0, {}, false],
    [1, 0, { min_calls_in_window: 1 }, true],
    [0, 1, { min_calls_in_window: 1 }, false],
    [4, 1, { failure_threshold: 1 }, false], // 80% < 100%
    [5, 0, { failure_threshold: 1 }, true],
    [1, 9, { failure_threshold: 0.1 }, true], // 10% reaches 10%
    [1, 10, { failure_threshold: 0.1 }, false],
    [9, 1, { min_calls_in_window: 11 }, false],
    [10, 0, { enabled: false }, false] // a disabled breaker never trips
  ] as const)("%i failures, %i others, %j → trip %s", (failures, successes, change, trips) => {
    const result = evaluateBreaker({ ...config, ...change }, [...many(failures, failure), ...many(successes, success)], NOW)
    expect(result.trip).toBe(trips)
    expect(result.failureCount).toBe(failures)
    expect(result.successCount).toBe(successes)
    expect(result.failureRate).toBe(failures + successes === 0 ? 0 : failures / (failures + successes))
  })

  it("counts only [now - window_seconds, now]: the window's start is included, anything older or later is not", () => {
    const start = NOW - 120_000
    const inside = [failure(start), failure(start + 1), failure(NOW - 60_000), failure(NOW), failure(NOW)]
    expect(evaluateBreaker(config, inside, NOW)).toMatchObject({ trip: true, failureCount: 5 })
    const edgeOut = [failure(start - 1), ...inside.slice(1)]
    expect(evaluateBreaker(config, edgeOut, NOW)).toMatchObject({ trip: false, failureCount: 4 })
    const future = [...inside.slice(1), failure(NOW + 1)]
    expect(evaluateBreaker(config, future, NOW)).toMatchObject({ trip: false, failureCount: 4 })
  })

  it("old failures falling out of the window stop it tripping", () => {
    const outcomes = [...many(5, () => failure(NOW - 100_000)), ...many(5, () => success(NOW - 10_000))]
    expect(evaluateBreaker(config, outcomes, NOW).trip).toBe(true) // 50% of 10
    expect(evaluateBreaker(config, outcomes, NOW + 21_000)).toMatchObject({ trip: false, failureCount: 0, successCount: 5 })
  })

  it("uses the window length of its config", () => {
    const outcomes = many(5, () => failure(NOW - 300_000))
    expect(evaluateBreaker(config, outcomes, NOW).trip).toBe(false)
    expect(evaluateBreaker({ ...config, window_seconds: 300 }, outcomes, NOW).trip).toBe(true)
  })

  it("a disabled breaker still reports its numbers", () => {
    expect(evaluateBreaker({ ...config, enabled: false }, [...many(3, failure), ...many(1, success)], NOW)).toMatchObject({
      trip: false,
      failureRate: 0.75,
      failureCount: 3,
      successCount: 1
    })
  })

  it("the defaults trip at 50% of at least 5 calls in 120 s", () => {
    expect(evaluateBreaker(defaultCircuitBreaker, [...many(3, failure), ...many(2, success)], NOW).trip).toBe(true)
    expect(evaluateBreaker(defaultCircuitBreaker, [...many(2, failure), ...many(2, success)], NOW).trip).toBe(false)
  })

  it("recent failures: the last 20 by time, oldest first, with run id, reason and ISO time", () => {
    const failures = Array.from({ length: 30 }, (_, i): BreakerOutcome => ({
      at: NOW - 60_000 + i * 1000,
      failure: true,
      runId: 1000 + i,
      reason: i % 2 === 0 ? "failed" : "call_initiation_failed"
    }))
    // Out of order, as fibers may record them, with successes in between.
    const shuffled = [...failures.slice(15), ...many(10, success), ...failures.slice(0, 15).reverse()]
    const result = evaluateBreaker(config, shuffled, NOW)
    expect(result.failureCount).toBe(30)
    expect(result.recentFailures).toHaveLength(20)
    expect(result.recentFailures.map((f) => f.workflow_run_id)).toEqual(Array.from({ length: 20 }, (_, i) => 1010 + i))
    expect(result.recentFailures[0]).toEqual({
      workflow_run_id: 1010,
      reason: "failed",
      ts: new Date(NOW - 50_000).toISOString()
    })
    expect(result.recentFailures[19]).toEqual({ workflow_run_id: 1029, reason: "call_initiation_failed", ts: "2026-11-23T11:59:29.000Z" })
  })

  it("recent failures leave out failures outside the window", () => {
    const result = evaluateBreaker(config, [failure(NOW - 200_000), failure(NOW - 1000), success()], NOW)
    expect(result.recentFailures.map((f) => f.ts)).toEqual([new Date(NOW - 1000).toISOString()])
  })
})

describe("breakerMessage", () => {
  it("says the rate, the counts, the threshold and the window", () => {
    const result = evaluateBreaker(config, [...many(3, failure), ...many(2, success)], NOW)
    expect(breakerMessage(result, config)).toBe("Paused: failure rate 60.00% (3/5) exceeded threshold 50.00% in 120s window")
  })
  it("rounds to two decimals", () => {
    const result = evaluateBreaker({ ...config, failure_threshold: 0.333 }, [...many(2, failure), ...many(4, success)], NOW)
    expect(breakerMessage(result, { failure_threshold: 0.333, window_seconds: 300 })).toBe(
      "Paused: failure rate 33.33% (2/6) exceeded threshold 33.30% in 300s window"
    )
  })
})

describe("properties", () => {
  const outcome = FastCheck.record({
    at: FastCheck.integer({ min: NOW - 400_000, max: NOW + 10_000 }),
    failure: FastCheck.boolean(),
    runId: FastCheck.nat(),
    reason: FastCheck.constantFrom("failed", "busy", "completed")
  })
  const anyConfig = FastCheck.record({
    enabled: FastCheck.boolean(),
    failure_threshold: FastCheck.double({ min: 0.01, max: 1, noNaN: true }),
    window_seconds: FastCheck.integer({ min: 10, max: 3600 }),
    min_calls_in_window: FastCheck.integer({ min: 1, max: 20 })
  })

  it("counts add up to the outcomes in the window, and a disabled breaker never trips", () => {
    FastCheck.assert(
      FastCheck.property(anyConfig, FastCheck.array(outcome, { maxLength: 60 }), (c, outcomes) => {
        const result = evaluateBreaker(c, outcomes, NOW)
        const inWindow = outcomes.filter((o) => o.at >= NOW - c.window_seconds * 1000 && o.at <= NOW)
        expect(result.failureCount + result.successCount).toBe(inWindow.length)
        expect(result.recentFailures.length).toBe(Math.min(20, result.failureCount))
        expect(result.failureRate).toBeGreaterThanOrEqual(0)
        expect(result.failureRate).toBeLessThanOrEqual(1)
        if (!c.enabled) expect(result.trip).toBe(false)
        if (result.trip) {
          expect(result.failureCount + result.successCount).toBeGreaterThanOrEqual(c.min_calls_in_window)
          expect(result.failureRate).toBeGreaterThanOrEqual(c.failure_threshold)
        }
      })
    )
  })

  it("one more failure now never un-trips it; once enough calls were seen, one more success never trips it", () => {
    FastCheck.assert(
      FastCheck.property(anyConfig, FastCheck.array(outcome, { maxLength: 60 }), (c, outcomes) => {
        const before = evaluateBreaker(c, outcomes, NOW)
        if (before.trip) expect(evaluateBreaker(c, [...outcomes, failure()], NOW).trip).toBe(true)
        else if (before.failureCount + before.successCount >= c.min_calls_in_window) {
          expect(evaluateBreaker(c, [...outcomes, success()], NOW).trip).toBe(false)
        }
      })
    )
  })

  it("the order of outcomes does not matter", () => {
    FastCheck.assert(
      FastCheck.property(anyConfig, FastCheck.array(outcome, { maxLength: 40 }), (c, outcomes) => {
        expect(evaluateBreaker(c, [...outcomes].reverse(), NOW)).toEqual(evaluateBreaker(c, outcomes, NOW))
      })
    )
  })
})
