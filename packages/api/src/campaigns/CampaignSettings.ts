/**
 * Campaign settings with explicit bounds and defaults. Decoding `{}` gives the full effective object, and
 * responses always show effective values: a campaign created without a breaker shows the enabled default
 * breaker that actually runs (the reference reported `enabled: false` for it while applying it).
 *
 * Fields are `exact` optionals: JSON never carries `undefined`, and without the extra `| undefined`
 * member a wrong value reports one issue ("max_retries must be …") instead of two.
 */
import { DateTime, Option, Schema } from "effect"
import type { FastCheck } from "effect"

const bool = (value: boolean) => Schema.optionalWith(Schema.Boolean, { exact: true, default: () => value })

/** The message overrides the base type's too, so `"2"`, `1.5` and `11` all say what is accepted. */
const boundedInt = (name: string, min: number, max: number) =>
  Schema.Number.pipe(Schema.int(), Schema.between(min, max)).annotations({
    message: () => ({ message: `${name} must be an integer between ${min} and ${max}`, override: true })
  })

const int = (name: string, min: number, max: number, value: number) =>
  Schema.optionalWith(boundedInt(name, min, max), { exact: true, default: () => value })

// ------------------------------------------------------------------------------------------ retries

/**
 * `max_retries` counts retries, not attempts: at most `max_retries + 1` calls per contact. Voicemail is
 * retried like busy and no answer when its flag is on (the reference never retried it).
 */
export const RetryConfig = Schema.Struct({
  enabled: bool(true),
  max_retries: int("max_retries", 0, 10, 2),
  retry_delay_seconds: int("retry_delay_seconds", 1, 86_400, 120),
  retry_on_busy: bool(true),
  retry_on_no_answer: bool(true),
  retry_on_voicemail: bool(true)
})
export type RetryConfig = typeof RetryConfig.Type
export type RetryConfigInput = typeof RetryConfig.Encoded

export const defaultRetryConfig: RetryConfig = Schema.decodeSync(RetryConfig)({})

const change = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** A campaign update's `retry_config`: the fields sent replace the stored ones, the others are kept. */
export const RetryConfigChanges = Schema.Struct({
  enabled: change(Schema.Boolean),
  max_retries: change(boundedInt("max_retries", 0, 10)),
  retry_delay_seconds: change(boundedInt("retry_delay_seconds", 1, 86_400)),
  retry_on_busy: change(Schema.Boolean),
  retry_on_no_answer: change(Schema.Boolean),
  retry_on_voicemail: change(Schema.Boolean)
}).annotations({ description: "The fields to change; fields not sent keep their stored values" })

// ------------------------------------------------------------------------------------------ schedule

// Real clock times only: the reference's `\d{2}:\d{2}` accepted "25:99".
const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/

/** Minutes after midnight of an "HH:MM" (or "24:00" = 1440) already validated by the schemas. */
export const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))

// Generators for property tests (random strings almost never pass these filters by chance).
const clockArbitrary = () => (fc: typeof FastCheck) =>
  fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
    .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`)

/** A 24-hour "HH:MM" named in messages as `name`; an end may also be "24:00". */
const clockTime = (name: string, end: boolean) =>
  Schema.String.pipe(
    Schema.filter((s) => CLOCK.test(s) || (end && s === "24:00"), {
      message: () => `${name} must be a 24-hour time HH:MM from 00:00 to ${end ? "24:00" : "23:59"}`,
      arbitrary: clockArbitrary
    })
  )

const StartTime = clockTime("start_time", false)
// "24:00" lets a slot run to the end of its day without spilling into the next one.
const EndTime = clockTime("end_time", true)

/**
 * One weekly window. `day_of_week` 0 = Monday … 6 = Sunday (the day the slot starts on). An end before
 * the start runs overnight into the next day (Friday 22:00–02:00 covers Saturday 01:00). Start and end
 * may not be equal: it would be ambiguous between an empty window and a full day (use 00:00–24:00).
 */
export const ScheduleSlot = Schema.Struct({
  day_of_week: Schema.Number.pipe(Schema.int(), Schema.between(0, 6)).annotations({
    message: () => ({ message: "day_of_week must be an integer from 0 (Monday) to 6 (Sunday)", override: true })
  }),
  start_time: StartTime,
  end_time: EndTime
}).pipe(
  Schema.filter((slot) =>
    minutesOf(slot.start_time) === minutesOf(slot.end_time)
      ? {
        path: ["end_time"],
        message: "end_time must differ from start_time (an end before the start runs overnight; 00:00–24:00 is a full day)"
      }
      : true
  )
)
export type ScheduleSlot = typeof ScheduleSlot.Type

const DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const

/** 0 = Monday … 6 = Sunday for a day's English name or its first three letters, in any case. */
export const dayOfWeek = (name: string): number | undefined => {
  const wanted = name.trim().toLowerCase()
  const index = DAYS.findIndex((day) => day === wanted || day.slice(0, 3) === wanted)
  return index < 0 ? undefined : index
}

const DayName = Schema.String.pipe(
  Schema.filter((s) => dayOfWeek(s) !== undefined, {
    message: () => `day must be a day name: ${DAYS.join(", ")} (or its first three letters)`,
    arbitrary: () => (fc) => fc.constantFrom(...DAYS, "Mon", "FRI")
  })
)

/**
 * The spec's descriptive form of a slot, `{day: "monday", start: "09:00", end: "17:00"}` (day names,
 * 24-hour times), decoded to a `ScheduleSlot` with the same rules.
 */
export const TimeSlot = Schema.transform(
  Schema.Struct({ day: DayName, start: clockTime("start", false), end: clockTime("end", true) }).pipe(
    Schema.filter((slot) =>
      minutesOf(slot.start) === minutesOf(slot.end)
        ? { path: ["end"], message: "end must differ from start (an end before the start runs overnight; 00:00–24:00 is a full day)" }
        : true
    )
  ),
  Schema.Struct({ day_of_week: Schema.Number, start_time: Schema.String, end_time: Schema.String }),
  {
    strict: true,
    decode: (slot) => ({ day_of_week: dayOfWeek(slot.day)!, start_time: slot.start, end_time: slot.end }),
    encode: (slot) => ({ day: DAYS[slot.day_of_week] ?? String(slot.day_of_week), start: slot.start_time, end: slot.end_time })
  }
)

export const TimeSlots = Schema.Array(TimeSlot).pipe(
  Schema.minItems(1, { message: () => "time_slots must have between 1 and 50 entries" }),
  Schema.maxItems(50, { message: () => "time_slots must have between 1 and 50 entries" })
)

/** Whether the runtime knows this IANA zone (aliases such as US/Eastern included; offsets such as +05:00 are not zones). */
export const isTimeZone = (zone: string): boolean => Option.isSome(DateTime.zoneMakeNamed(zone))

// Validated here so that a bad zone is a 422 up front, never a schedule that silently dials at any time.
const TimeZoneName = Schema.String.pipe(
  Schema.filter(isTimeZone, {
    message: (issue) => `timezone ${JSON.stringify(issue.actual)} is not a known IANA time zone (for example America/New_York or UTC)`,
    arbitrary: () => (fc) => fc.constantFrom("UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe")
  })
)

export const ScheduleConfig = Schema.Struct({
  enabled: bool(true),
  timezone: Schema.optionalWith(TimeZoneName, { exact: true, default: () => "UTC" }),
  slots: Schema.Array(ScheduleSlot).pipe(
    Schema.minItems(1, { message: () => "slots must have between 1 and 50 entries" }),
    Schema.maxItems(50, { message: () => "slots must have between 1 and 50 entries" })
  )
})
export type ScheduleConfig = typeof ScheduleConfig.Type
export type ScheduleConfigInput = typeof ScheduleConfig.Encoded

// ------------------------------------------------------------------------------------------ breaker

const FailureThreshold = Schema.Number.pipe(Schema.filter((n) => n > 0 && n <= 1)).annotations({
  message: () => ({ message: "failure_threshold must be a number greater than 0 and at most 1", override: true })
})

export const CircuitBreakerConfig = Schema.Struct({
  enabled: bool(true),
  failure_threshold: Schema.optionalWith(FailureThreshold, { exact: true, default: () => 0.5 }),
  window_seconds: int("window_seconds", 10, 3600, 120),
  min_calls_in_window: int("min_calls_in_window", 1, 1000, 5)
})
export type CircuitBreakerConfig = typeof CircuitBreakerConfig.Type
export type CircuitBreakerConfigInput = typeof CircuitBreakerConfig.Encoded

export const defaultCircuitBreaker: CircuitBreakerConfig = Schema.decodeSync(CircuitBreakerConfig)({})

/** A campaign update's `circuit_breaker`: the fields sent replace the stored ones, the others are kept. */
export const CircuitBreakerChanges = Schema.Struct({
  enabled: change(Schema.Boolean),
  failure_threshold: change(FailureThreshold),
  window_seconds: change(boundedInt("window_seconds", 10, 3600)),
  min_calls_in_window: change(boundedInt("min_calls_in_window", 1, 1000))
}).annotations({ description: "The fields to change; fields not sent keep their stored values" })

// ------------------------------------------------------------------------------------------ effective values

/** What runs when a campaign gives no retry config (`null`/`undefined`) or a partial one. Throws a ParseError on invalid input. */
export const effectiveRetryConfig = (input: RetryConfigInput | null | undefined): RetryConfig =>
  Schema.decodeUnknownSync(RetryConfig)(input ?? {})

/** What runs when a campaign gives no breaker or a partial one: never a disabled breaker unless asked for. */
export const effectiveCircuitBreaker = (input: CircuitBreakerConfigInput | null | undefined): CircuitBreakerConfig =>
  Schema.decodeUnknownSync(CircuitBreakerConfig)(input ?? {})

/** No schedule means dialing at any time, so absence stays `null` rather than becoming a default schedule. */
export const effectiveScheduleConfig = (input: ScheduleConfigInput | null | undefined): ScheduleConfig | null =>
  input == null ? null : Schema.decodeUnknownSync(ScheduleConfig)(input)
