/**
 * Campaign settings with explicit bounds and defaults (see docs/campaigns.md). Decoding `{}` gives the
 * full effective object, and responses always show effective values: a breaker that runs is never
 * reported as disabled.
 */
import { DateTime, Option, Schema } from "effect"

const bool = (value: boolean) => Schema.optionalWith(Schema.Boolean, { default: () => value })
const int = (name: string, min: number, max: number, value: number) =>
  Schema.optionalWith(
    Schema.Int.annotations({ message: () => `${name} must be an integer between ${min} and ${max}` }).pipe(
      Schema.between(min, max, { message: () => `${name} must be an integer between ${min} and ${max}` })
    ),
    { default: () => value }
  )

export const RetryConfig = Schema.Struct({
  enabled: bool(true),
  max_retries: int("max_retries", 0, 10, 2),
  retry_delay_seconds: int("retry_delay_seconds", 1, 86_400, 120),
  retry_on_busy: bool(true),
  retry_on_no_answer: bool(true),
  retry_on_voicemail: bool(true)
})
export type RetryConfig = typeof RetryConfig.Type
export const defaultRetryConfig: RetryConfig = Schema.decodeSync(RetryConfig)({})

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/

const Time = Schema.String.pipe(Schema.pattern(TIME, { message: () => "must be a 24-hour time HH:MM between 00:00 and 23:59" }))
const EndTime = Schema.String.pipe(
  Schema.filter((s) => TIME.test(s) || s === "24:00", { message: () => "must be a 24-hour time HH:MM (00:00 to 24:00)" })
)

export const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))

/** `day_of_week` 0 = Monday … 6 = Sunday. An end before the start runs overnight into the next day. */
export const ScheduleSlot = Schema.Struct({
  day_of_week: Schema.Int.pipe(Schema.between(0, 6, { message: () => "day_of_week must be 0 (Monday) to 6 (Sunday)" })),
  start_time: Time,
  end_time: EndTime
}).pipe(
  Schema.filter((slot) =>
    minutesOf(slot.start_time) === minutesOf(slot.end_time)
      ? { path: ["end_time"], message: "end_time must differ from start_time (an end before the start runs overnight)" }
      : true
  )
)
export type ScheduleSlot = typeof ScheduleSlot.Type

export const isTimeZone = (zone: string): boolean => Option.isSome(DateTime.zoneMakeNamed(zone))

export const ScheduleConfig = Schema.Struct({
  enabled: bool(true),
  timezone: Schema.optionalWith(
    Schema.String.pipe(Schema.filter(isTimeZone, { message: (issue) => `unknown time zone ${JSON.stringify(issue.actual)}; use an IANA name such as America/New_York` })),
    { default: () => "UTC" }
  ),
  slots: Schema.Array(ScheduleSlot).pipe(
    Schema.minItems(1, { message: () => "slots must have between 1 and 50 entries" }),
    Schema.maxItems(50, { message: () => "slots must have between 1 and 50 entries" })
  )
})
export type ScheduleConfig = typeof ScheduleConfig.Type

export const CircuitBreakerConfig = Schema.Struct({
  enabled: bool(true),
  failure_threshold: Schema.optionalWith(
    Schema.Number.pipe(Schema.filter((n) => n > 0 && n <= 1, { message: () => "failure_threshold must be greater than 0 and at most 1" })),
    { default: () => 0.5 }
  ),
  window_seconds: int("window_seconds", 10, 3600, 120),
  min_calls_in_window: int("min_calls_in_window", 1, 1000, 5)
})
export type CircuitBreakerConfig = typeof CircuitBreakerConfig.Type
export const defaultCircuitBreaker: CircuitBreakerConfig = Schema.decodeSync(CircuitBreakerConfig)({})
