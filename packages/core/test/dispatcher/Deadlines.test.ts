import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import {
  callDeadline,
  claimDeadline,
  DEFAULT_MAX_CALL_SECONDS,
  MAX_CALL_SECONDS_CAP,
  maxCallSeconds
} from "../../src/dispatcher/Deadlines.js"

describe("maxCallSeconds", () => {
  it.each([
    [null, DEFAULT_MAX_CALL_SECONDS],
    [{}, DEFAULT_MAX_CALL_SECONDS],
    [{ max_call_duration: 10 }, 10],
    [{ max_call_duration: 0.5 }, 0.5],
    [{ max_call_duration: 5000 }, MAX_CALL_SECONDS_CAP],
    [{ max_call_duration: 0 }, DEFAULT_MAX_CALL_SECONDS],
    [{ max_call_duration: -3 }, DEFAULT_MAX_CALL_SECONDS],
    [{ max_call_duration: "60" }, DEFAULT_MAX_CALL_SECONDS],
    [{ max_call_duration: Number.NaN }, DEFAULT_MAX_CALL_SECONDS],
    ["max_call_duration", DEFAULT_MAX_CALL_SECONDS]
  ] as const)("%j → %d", (configurations, expected) => {
    expect(maxCallSeconds(configurations)).toBe(expected)
  })

  it("is always positive and at most the cap, whatever the configuration holds", () => {
    FastCheck.assert(FastCheck.property(FastCheck.anything(), (value) => {
      const seconds = maxCallSeconds({ max_call_duration: value })
      return seconds > 0 && seconds <= MAX_CALL_SECONDS_CAP
    }))
  })
})

describe("deadlines", () => {
  it("a placed call is asked about after its longest call plus the margin", () => {
    expect(callDeadline(1_000, { max_call_duration: 10 }, 60)).toBe(1_000 + 70_000)
    expect(callDeadline(0, null, 60)).toBe((DEFAULT_MAX_CALL_SECONDS + 60) * 1000)
  })
  it("a claim is taken for lost after the margin", () => {
    expect(claimDeadline(5_000, 60)).toBe(65_000)
  })
  it("a call's deadline is never before its claim's", () => {
    FastCheck.assert(FastCheck.property(
      FastCheck.integer({ min: 0, max: 2 ** 40 }),
      FastCheck.anything(),
      FastCheck.integer({ min: 1, max: 3600 }),
      (now, configurations, margin) => callDeadline(now, configurations, margin) > claimDeadline(now, margin)
    ))
  })
})
