/**
 * Calling windows: is an instant inside a schedule's slots, and when does the next one open. Evaluated
 * in the contact's zone when it has one, else the schedule's, with Effect's DateTime (IANA zones and
 * their daylight-saving rules).
 *
 * Slots are wall-clock windows: an instant is inside when its local weekday and time are, start-inclusive
 * and end-exclusive. Consequences across daylight-saving changes, chosen on purpose:
 * - spring forward (the clock skips e.g. 02:00–03:00): a slot starting at a skipped time such as 02:30
 *   opens at the jump itself (03:00 local), the first instant whose local time is past its start;
 *   a slot lying entirely inside the skipped hour does not open that day;
 * - fall back (e.g. 01:00–02:00 happens twice): a time that occurs twice is inside both times, so a
 *   slot starting at 01:30 opens at its first occurrence, and is open again at the second one.
 *
 * Unknown zones fail closed (never inside, no next start): dialing at any hour because a zone name is
 * wrong is the reference's flaw. Validated schedules and imported contacts only carry known zones.
 */
import { DateTime, Option } from "effect"
import { minutesOf, type ScheduleConfig, type ScheduleSlot } from "@agentline/api/campaigns/CampaignSettings"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
/** Offset changes are followed this far: a weekly schedule's next opening is found within it. */
const HORIZON = 8 * DAY
/** Offset samples this far apart find every transition: real zones never change offset twice within it. */
const SAMPLE = 3 * HOUR

// Building an Intl formatter is costly and the dispatcher asks per contact, so zones are looked up once.
const zones = new Map<string, DateTime.TimeZone | null>()
const zoneOf = (id: string): DateTime.TimeZone | null => {
  let zone = zones.get(id)
  if (zone === undefined) {
    zone = Option.getOrNull(DateTime.zoneMakeNamed(id))
    zones.set(id, zone)
  }
  return zone
}

/** Milliseconds to add to an instant to get its local wall-clock time read as if it were UTC. */
const offsetAt = (zone: DateTime.TimeZone, millis: number): number =>
  DateTime.zonedOffset(DateTime.unsafeMakeZoned(millis, { timeZone: zone }))

// --------------------------------------------------------------------- the wall-clock timeline
// A "wall" value is a local date and time encoded as epoch millis of that same date and time in UTC.
// 1970-01-01 was a Thursday, which is day 3 when Monday is 0.

const weekdayOf = (wall: number): number => (((Math.floor(wall / DAY) + 3) % 7) + 7) % 7
const timeOfDay = (wall: number): number => wall - Math.floor(wall / DAY) * DAY

const slotBounds = (slot: ScheduleSlot) => ({
  start: minutesOf(slot.start_time) * MINUTE,
  end: minutesOf(slot.end_time) * MINUTE
})

const insideWall = (slots: ReadonlyArray<ScheduleSlot>, wall: number): boolean => {
  const day = weekdayOf(wall)
  const time = timeOfDay(wall)
  return slots.some((slot) => {
    const { end, start } = slotBounds(slot)
    if (start < end) return day === slot.day_of_week && time >= start && time < end
    // Overnight: the evening part on its own day, the morning part on the next.
    return (day === slot.day_of_week && time >= start) || (day === (slot.day_of_week + 1) % 7 && time < end)
  })
}

/** On the wall timeline (no clock changes), the earliest wall time ≥ `wall` inside a slot. */
const nextWall = (slots: ReadonlyArray<ScheduleSlot>, wall: number): number => {
  if (insideWall(slots, wall)) return wall
  // Outside every slot, the next entry into one is some slot's start within the coming week.
  const today = Math.floor(wall / DAY)
  let best = Infinity
  for (const slot of slots) {
    const { start } = slotBounds(slot)
    for (let d = 0; d <= 7; d++) {
      const candidate = (today + d) * DAY + start
      if (weekdayOf(candidate) === slot.day_of_week && candidate >= wall) {
        best = Math.min(best, candidate)
        break
      }
    }
  }
  return best
}

/** The first instant in (from, until] whose offset differs from the one at `from`, if any. */
const nextTransition = (zone: DateTime.TimeZone, from: number, offset: number, until: number): number | null => {
  for (let lo = from; lo < until;) {
    const hi = Math.min(lo + SAMPLE, until)
    if (offsetAt(zone, hi) !== offset) {
      // The offset is `offset` at lo and different at hi: narrow down to the millisecond.
      let a = lo
      let b = hi
      while (b - a > 1) {
        const mid = Math.floor((a + b) / 2)
        if (offsetAt(zone, mid) === offset) a = mid
        else b = mid
      }
      return b
    }
    lo = hi
  }
  return null
}

// --------------------------------------------------------------------- the API

const active = (schedule: ScheduleConfig | null): schedule is ScheduleConfig =>
  schedule !== null && schedule.enabled && schedule.slots.length > 0

// An empty zone cell in a contact list means "no zone of its own", not an invalid zone.
const zoneIdOf = (schedule: ScheduleConfig, override: string | null | undefined): string =>
  override === undefined || override === null || override === "" ? schedule.timezone : override

/** Whether `nowMillis` is inside the schedule (no schedule, disabled or no slots: always). */
export const isWithinSchedule = (
  schedule: ScheduleConfig | null,
  nowMillis: number,
  timeZoneOverride?: string | null
): boolean => {
  if (!active(schedule)) return true
  const zone = zoneOf(zoneIdOf(schedule, timeZoneOverride))
  if (zone === null) return false
  return insideWall(schedule.slots, nowMillis + offsetAt(zone, nowMillis))
}

/**
 * The earliest instant ≥ `nowMillis` inside the schedule: `nowMillis` itself when inside, `null` when
 * it cannot open (an unknown zone). With a known zone and at least one slot it always opens, within a
 * week, or two when the coming occurrence lies wholly in a skipped hour.
 *
 * Between two offset changes the wall clock runs in step with real time, so within each such stretch
 * the answer is found on the wall timeline and mapped back; if it falls past the stretch's end, the
 * search goes on from the change (which may itself land inside a slot, as when the clock skips into one).
 */
export const nextWindowStart = (
  schedule: ScheduleConfig | null,
  nowMillis: number,
  timeZoneOverride?: string | null
): number | null => {
  if (!active(schedule)) return nowMillis
  const zone = zoneOf(zoneIdOf(schedule, timeZoneOverride))
  if (zone === null) return null
  let from = nowMillis
  while (from <= nowMillis + HORIZON) {
    const offset = offsetAt(zone, from)
    const candidate = nextWall(schedule.slots, from + offset) - offset
    const change = nextTransition(zone, from, offset, candidate)
    if (change === null) return candidate
    from = change
  }
  return null
}
