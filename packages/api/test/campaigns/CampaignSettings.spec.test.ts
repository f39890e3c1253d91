import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { CircuitBreakerConfig, defaultCircuitBreaker, defaultRetryConfig, RetryConfig, ScheduleConfig } from "../../src/campaigns/CampaignSettings.js"

const accepts = <A, I>(schema: Schema.Schema<A, I>, value: unknown) => Either.isRight(Schema.decodeUnknownEither(schema)(value))

describe("settings bounds and defaults", () => {
  it("decoding {} gives the effective defaults", () => {
    expect(defaultRetryConfig).toEqual({ enabled: true, max_retries: 2, retry_delay_seconds: 120, retry_on_busy: true, retry_on_no_answer: true, retry_on_voicemail: true })
    expect(defaultCircuitBreaker).toEqual({ enabled: true, failure_threshold: 0.5, window_seconds: 120, min_calls_in_window: 5 })
  })

  it.each([
    [RetryConfig, "max_retries", [0, 10], [-1, 11, 1.5]],
    [RetryConfig, "retry_delay_seconds", [1, 86400], [0, 86401]],
    [CircuitBreakerConfig, "failure_threshold", [0.01, 1], [0, 1.01, -0.5]],
    [CircuitBreakerConfig, "window_seconds", [10, 3600], [9, 3601]],
    [CircuitBreakerConfig, "min_calls_in_window", [1, 1000], [0, 1001]]
  ] as const)("%#: %s inside/at/outside its bounds", (schema, field, good, bad) => {
    for (const v of good) expect(accepts(schema as any, { [field]: v }), `${field}=${v}`).toBe(true)
    for (const v of bad) expect(accepts(schema as any, { [field]: v }), `${field}=${v}`).toBe(false)
  })

  it("schedules: real times, 24:00 only as an end, distinct start and end, 1–50 slots, real zones", () => {
    const slot = (start_time: string, end_time: string, day_of_week = 0) => ({ day_of_week, start_time, end_time })
    expect(accepts(ScheduleConfig, { slots: [slot("09:00", "17:00")] })).toBe(true)
    expect(accepts(ScheduleConfig, { slots: [slot("22:00", "02:00")] })).toBe(true)
    expect(accepts(ScheduleConfig, { slots: [slot("09:00", "24:00")] })).toBe(true)
    expect(accepts(ScheduleConfig, { slots: [slot("24:00", "09:00")] })).toBe(false)
    expect(accepts(ScheduleConfig, { slots: [slot("25:99", "26:00")] })).toBe(false)
    expect(accepts(ScheduleConfig, { slots: [slot("9:00", "17:00")] })).toBe(false)
    expect(accepts(ScheduleConfig, { slots: [slot("09:00", "09:00")] })).toBe(false)
    expect(accepts(ScheduleConfig, { slots: [slot("09:00", "17:00", 7)] })).toBe(false)
    expect(accepts(ScheduleConfig, { slots: [] })).toBe(false)
    expect(accepts(ScheduleConfig, { slots: Array.from({ length: 51 }, () => slot("09:00", "17:00")) })).toBe(false)
    expect(accepts(ScheduleConfig, { slots: Array.from({ length: 50 }, () => slot("09:00", "17:00")) })).toBe(true)
    expect(accepts(ScheduleConfig, { timezone: "America/New_York", slots: [slot("09:00", "17:00")] })).toBe(true)
    expect(accepts(ScheduleConfig, { timezone: "Mars/Olympus", slots: [slot("09:00", "17:00")] })).toBe(false)
    expect(Schema.decodeUnknownSync(ScheduleConfig)({ slots: [slot("09:00", "17:00")] })).toMatchObject({ enabled: true, timezone: "UTC" })
  })
})
