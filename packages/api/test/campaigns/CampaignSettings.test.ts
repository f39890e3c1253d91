import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import {
  CircuitBreakerConfig,
  defaultCircuitBreaker,
  defaultRetryConfig,
  effectiveCircuitBreaker,
  effectiveRetryConfig,
  effectiveScheduleConfig,
  isTimeZone,
  minutesOf,
  RetryConfig,
  ScheduleConfig,
  ScheduleSlot
} from "../../src/campaigns/CampaignSettings.js"

/** Decodes and returns either the value or every issue as `path: message`. */
const decode = <A, I>(schema: Schema.Schema<A, I>, input: unknown): Either.Either<A, Array<string>> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(schema)(input, { errors: "all" }),
    (error) => ParseResult.ArrayFormatter.formatErrorSync(error).map((i) => `${i.path.join(".")}: ${i.message}`)
  )

const issues = (schema: Schema.Schema<any, any>, input: unknown): Array<string> =>
  Either.match(decode(schema, input), { onLeft: (l) => l, onRight: () => [] })

const slot = (start_time: string, end_time: string, day_of_week = 0) => ({ day_of_week, start_time, end_time })

describe("defaults: decoding {} gives the effective settings", () => {
  it("retry config", () => {
    const expected = {
      enabled: true,
      max_retries: 2,
      retry_delay_seconds: 120,
      retry_on_busy: true,
      retry_on_no_answer: true,
      retry_on_voicemail: true
    }
    expect(Schema.decodeUnknownSync(RetryConfig)({})).toEqual(expected)
    expect(defaultRetryConfig).toEqual(expected)
    // Voicemail is retried by default, unlike the reference.
    expect(defaultRetryConfig.retry_on_voicemail).toBe(true)
  })

  it("circuit breaker: enabled by default, so a campaign without one shows the breaker that runs", () => {
    const expected = { enabled: true, failure_threshold: 0.5, window_seconds: 120, min_calls_in_window: 5 }
    expect(Schema.decodeUnknownSync(CircuitBreakerConfig)({})).toEqual(expected)
    expect(defaultCircuitBreaker).toEqual(expected)
    expect(effectiveCircuitBreaker(undefined)).toEqual(expected)
    expect(effectiveCircuitBreaker(null)).toEqual(expected)
  })

  it("schedule: enabled, UTC; slots are required", () => {
    expect(Schema.decodeUnknownSync(ScheduleConfig)({ slots: [slot("09:00", "17:00")] })).toEqual({
      enabled: true,
      timezone: "UTC",
      slots: [slot("09:00", "17:00")]
    })
    expect(issues(ScheduleConfig, {})).toEqual(["slots: is missing"])
  })

  it("partial input keeps what was given and fills the rest", () => {
    expect(effectiveRetryConfig({ max_retries: 0, retry_on_voicemail: false })).toEqual({
      ...defaultRetryConfig,
      max_retries: 0,
      retry_on_voicemail: false
    })
    expect(effectiveCircuitBreaker({ enabled: false })).toEqual({ ...defaultCircuitBreaker, enabled: false })
    expect(effectiveRetryConfig(null)).toEqual(defaultRetryConfig)
  })

  it("encoding the decoded value shows every field (what responses and storage carry)", () => {
    expect(Schema.encodeSync(CircuitBreakerConfig)(Schema.decodeUnknownSync(CircuitBreakerConfig)({}))).toEqual(defaultCircuitBreaker)
    expect(Schema.encodeSync(RetryConfig)(Schema.decodeUnknownSync(RetryConfig)({ enabled: false }))).toEqual({
      ...defaultRetryConfig,
      enabled: false
    })
  })

  it("no schedule stays no schedule (dial any time); a given one gets its defaults", () => {
    expect(effectiveScheduleConfig(null)).toBeNull()
    expect(effectiveScheduleConfig(undefined)).toBeNull()
    expect(effectiveScheduleConfig({ slots: [slot("22:00", "02:00", 4)] })).toEqual({
      enabled: true,
      timezone: "UTC",
      slots: [slot("22:00", "02:00", 4)]
    })
    expect(() => effectiveScheduleConfig({ timezone: "Mars/Olympus", slots: [slot("09:00", "17:00")] })).toThrow(
      /not a known IANA time zone/
    )
  })
})

describe("integer bounds: inside, at and outside each bound", () => {
  const cases: Array<[Schema.Schema<any, any>, string, number, number]> = [
    [RetryConfig, "max_retries", 0, 10],
    [RetryConfig, "retry_delay_seconds", 1, 86_400],
    [CircuitBreakerConfig, "window_seconds", 10, 3600],
    [CircuitBreakerConfig, "min_calls_in_window", 1, 1000]
  ]
  for (const [schema, field, min, max] of cases) {
    const message = `${field}: ${field} must be an integer between ${min} and ${max}`
    it(`${field} accepts ${min}..${max}`, () => {
      for (const value of [min, min + 1, Math.floor((min + max) / 2), max - 1, max]) {
        expect(decode(schema, { [field]: value }), `${field}=${value}`).toEqual(
          Either.right(expect.objectContaining({ [field]: value }))
        )
      }
    })
    it(`${field} rejects below ${min}, above ${max}, fractions and non-numbers, saying the bound`, () => {
      for (const value of [min - 1, max + 1, min + 0.5, -Infinity, `${min}`, null, true]) {
        expect(issues(schema, { [field]: value }), `${field}=${JSON.stringify(value)}`).toEqual([message])
      }
    })
  }
})

describe("failure_threshold: greater than 0, at most 1", () => {
  it.each([1e-9, 0.01, 0.5, 0.999, 1])("accepts %s", (value) => {
    expect(Schema.decodeUnknownSync(CircuitBreakerConfig)({ failure_threshold: value }).failure_threshold).toBe(value)
  })
  it.each([0, -0.1, 1.0000001, 2, Number.NaN, "0.5", null])("rejects %s", (value) => {
    expect(issues(CircuitBreakerConfig, { failure_threshold: value })).toEqual([
      "failure_threshold: failure_threshold must be a number greater than 0 and at most 1"
    ])
  })
})

describe("booleans", () => {
  it("false is kept, not replaced by the default", () => {
    const retry = Schema.decodeUnknownSync(RetryConfig)({
      enabled: false,
      retry_on_busy: false,
      retry_on_no_answer: false,
      retry_on_voicemail: false
    })
    expect(retry).toEqual({ ...defaultRetryConfig, enabled: false, retry_on_busy: false, retry_on_no_answer: false, retry_on_voicemail: false })
    expect(Schema.decodeUnknownSync(ScheduleConfig)({ enabled: false, slots: [slot("09:00", "17:00")] }).enabled).toBe(false)
  })
  it("non-booleans are rejected", () => {
    expect(issues(RetryConfig, { retry_on_voicemail: "yes" })).toHaveLength(1)
    expect(issues(CircuitBreakerConfig, { enabled: 1 })).toHaveLength(1)
  })
})

describe("schedule slots", () => {
  it.each(["00:00", "00:01", "09:05", "12:30", "19:59", "23:59"])("start_time %s is a real time", (start) => {
    expect(Either.isRight(decode(ScheduleSlot, slot(start, start === "12:30" ? "13:00" : "12:30")))).toBe(true)
  })

  it.each(["24:00", "25:99", "24:01", "23:60", "9:00", "0900", "09:00:00", " 09:00", "09:0", "", "ab:cd", "-1:00"])(
    "start_time %j is rejected",
    (start) => {
      expect(issues(ScheduleSlot, slot(start, "10:00"))).toEqual([
        "start_time: start_time must be a 24-hour time HH:MM from 00:00 to 23:59"
      ])
    }
  )

  it("end_time may be 24:00 (end of the day) but nothing past it", () => {
    expect(decode(ScheduleSlot, slot("09:00", "24:00"))).toEqual(Either.right(slot("09:00", "24:00")))
    expect(decode(ScheduleSlot, slot("00:00", "24:00"))).toEqual(Either.right(slot("00:00", "24:00")))
    for (const end of ["24:01", "25:00", "26:00", "24:60", "9:00"]) {
      expect(issues(ScheduleSlot, slot("09:00", end)), end).toEqual([
        "end_time: end_time must be a 24-hour time HH:MM from 00:00 to 24:00"
      ])
    }
  })

  it("25:99 is not a time (the reference accepted it)", () => {
    expect(issues(ScheduleSlot, slot("25:99", "26:00"))).toEqual([
      "start_time: start_time must be a 24-hour time HH:MM from 00:00 to 23:59",
      "end_time: end_time must be a 24-hour time HH:MM from 00:00 to 24:00"
    ])
  })

  it("equal start and end are rejected; an end before the start is an overnight slot", () => {
    for (const [s, e] of [["09:00", "09:00"], ["00:00", "00:00"], ["23:59", "23:59"]] as const) {
      expect(issues(ScheduleSlot, slot(s, e))).toEqual([
        "end_time: end_time must differ from start_time (an end before the start runs overnight; 00:00–24:00 is a full day)"
      ])
    }
    expect(decode(ScheduleSlot, slot("22:00", "02:00", 4))).toEqual(Either.right(slot("22:00", "02:00", 4)))
    expect(decode(ScheduleSlot, slot("22:00", "00:00", 4))).toEqual(Either.right(slot("22:00", "00:00", 4)))
  })

  it("day_of_week is an integer 0 (Monday) to 6 (Sunday)", () => {
    for (const day of [0, 1, 5, 6]) expect(Either.isRight(decode(ScheduleSlot, slot("09:00", "10:00", day)))).toBe(true)
    for (const day of [-1, 7, 1.5, "1", null]) {
      expect(issues(ScheduleSlot, { ...slot("09:00", "10:00"), day_of_week: day }), JSON.stringify(day)).toEqual([
        "day_of_week: day_of_week must be an integer from 0 (Monday) to 6 (Sunday)"
      ])
    }
  })

  it("minutesOf reads HH:MM and 24:00", () => {
    expect(["00:00", "00:01", "09:30", "23:59", "24:00"].map(minutesOf)).toEqual([0, 1, 570, 1439, 1440])
  })
})

describe("schedule config", () => {
  const valid = (n: number) => Array.from({ length: n }, (_, i) => slot("09:00", "17:00", i % 7))

  it("1 to 50 slots", () => {
    expect(issues(ScheduleConfig, { slots: [] })).toEqual(["slots: slots must have between 1 and 50 entries"])
    expect(Either.isRight(decode(ScheduleConfig, { slots: valid(1) }))).toBe(true)
    expect(Either.isRight(decode(ScheduleConfig, { slots: valid(50) }))).toBe(true)
    expect(issues(ScheduleConfig, { slots: valid(51) })).toEqual(["slots: slots must have between 1 and 50 entries"])
  })

  it("a slot's problems are reported at its index", () => {
    expect(issues(ScheduleConfig, { slots: [slot("09:00", "17:00"), slot("25:99", "10:00")] })).toEqual([
      "slots.1.start_time: start_time must be a 24-hour time HH:MM from 00:00 to 23:59"
    ])
  })

  it.each(["UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe", "US/Eastern"])(
    "timezone %s is a known zone",
    (timezone) => {
      expect(isTimeZone(timezone)).toBe(true)
      expect(decode(ScheduleConfig, { timezone, slots: valid(1) })).toEqual(Either.right(expect.objectContaining({ timezone })))
    }
  )

  it.each(["Mars/Olympus", "", " UTC", "+05:00", "GMT+5", "America/NewYork", "Local"])("timezone %j is rejected", (timezone) => {
    expect(isTimeZone(timezone)).toBe(false)
    expect(issues(ScheduleConfig, { timezone, slots: valid(1) })).toEqual([
      `timezone: timezone ${JSON.stringify(timezone)} is not a known IANA time zone (for example America/New_York or UTC)`
    ])
  })

  it("reports every problem at once", () => {
    expect(issues(ScheduleConfig, { timezone: "Mars/Olympus", enabled: "no", slots: [slot("24:00", "24:00", 9)] })).toEqual([
      "enabled: Expected boolean, actual \"no\"",
      "timezone: timezone \"Mars/Olympus\" is not a known IANA time zone (for example America/New_York or UTC)",
      "slots.0.day_of_week: day_of_week must be an integer from 0 (Monday) to 6 (Sunday)",
      "slots.0.start_time: start_time must be a 24-hour time HH:MM from 00:00 to 23:59"
    ])
  })
})
