/**
 * Calling windows: is now inside a slot, and when does the next one open. Evaluated in the contact's
 * zone when it has one, else the schedule's, with Effect's DateTime (IANA zones, daylight saving).
 *
 * Daylight-saving choices: a slot starting at a wall time that does not exist that day (skipped by
 * spring-forward) opens at the first instant whose local time is past its start; a wall time that
 * occurs twice (fall-back) opens at its first occurrence. Slots are start-inclusive, end-exclusive.
 */
import { DateTime } from "effect"
import { minutesOf, type ScheduleConfig } from "./CampaignSettings.js"

const DAY = 24 * 60 * 60 * 1000

interface Local {
  readonly weekday: number
  readonly minutes: number
  readonly year: number
  readonly month: number
  readonly day: number
}

const local = (millis: number, zone: string): Local => {
  const parts = DateTime.toParts(DateTime.unsafeMakeZoned(millis, { timeZone: zone }))
  return {
    weekday: (parts.weekDay + 6) % 7, // DateTime counts from Sunday; schedules from Monday
    minutes: parts.hours * 60 + parts.minutes,
    year: parts.year,
    month: parts.month,
    day: parts.day
  }
}

const active = (schedule: ScheduleConfig | null): schedule is ScheduleConfig =>
  schedule !== null && schedule.enabled && schedule.slots.length > 0

export const isWithinSchedule = (schedule: ScheduleConfig | null, nowMillis: number, timeZoneOverride?: string): boolean => {
  if (!active(schedule)) return true
  const at = local(nowMillis, timeZoneOverride ?? schedule.timezone)
  return schedule.slots.some((slot) => {
    const start = minutesOf(slot.start_time)
    const end = minutesOf(slot.end_time)
    if (start < end) return at.weekday === slot.day_of_week && at.minutes >= start && at.minutes < end
    return (at.weekday === slot.day_of_week && at.minutes >= start) ||
      (at.weekday === (slot.day_of_week + 1) % 7 && at.minutes < end)
  })
}

/** The earliest instant ≥ now inside a window; null when the schedule can never open. */
export const nextWindowStart = (schedule: ScheduleConfig | null, nowMillis: number, timeZoneOverride?: string): number | null => {
  if (isWithinSchedule(schedule, nowMillis, timeZoneOverride)) return nowMillis
  if (!active(schedule)) return nowMillis
  const zone = timeZoneOverride ?? schedule.timezone
  let best: number | null = null
  for (let offset = 0; offset <= 8; offset++) {
    const day = local(nowMillis + offset * DAY, zone)
    for (const slot of schedule.slots) {
      if (slot.day_of_week !== day.weekday) continue
      const minutes = minutesOf(slot.start_time)
      const candidate = DateTime.toEpochMillis(DateTime.unsafeMakeZoned(
        { year: day.year, month: day.month, day: day.day, hours: Math.floor(minutes / 60), minutes: minutes % 60 },
        { timeZone: zone, adjustForTimeZone: true, disambiguation: "compatible" }
      ))
      if (candidate >= nowMillis && (best === null || candidate < best)) best = candidate
    }
  }
  if (best === null) return null
  // A start inside a skipped hour resolves past the gap: walk back to the first instant inside the window.
  let start = best
  for (let i = 0; i < 180 && start - 60_000 >= nowMillis && isWithinSchedule(schedule, start - 60_000, zone); i++) start -= 60_000
  return start
}
