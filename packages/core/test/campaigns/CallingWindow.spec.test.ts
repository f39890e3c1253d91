import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { isWithinSchedule, nextWindowStart } from "../../src/campaigns/CallingWindow.js"
import type { ScheduleConfig } from "@agentline/api/campaigns/CampaignSettings"

const schedule = (timezone: string, ...slots: Array<[number, string, string]>): ScheduleConfig => ({
  enabled: true,
  timezone,
  slots: slots.map(([day_of_week, start_time, end_time]) => ({ day_of_week, start_time, end_time }))
})
const at = (iso: string) => Date.parse(iso)

describe("isWithinSchedule", () => {
  // 2026-11-23 is a Monday.
  const weekdays = schedule("America/New_York", [0, "09:00", "17:00"])
  it("evaluates in the schedule's zone, start-inclusive, end-exclusive", () => {
    expect(isWithinSchedule(weekdays, at("2026-11-23T14:00:00Z"))).toBe(true) // 09:00 EST
    expect(isWithinSchedule(weekdays, at("2026-11-23T13:59:00Z"))).toBe(false)
    expect(isWithinSchedule(weekdays, at("2026-11-23T21:59:00Z"))).toBe(true)
    expect(isWithinSchedule(weekdays, at("2026-11-23T22:00:00Z"))).toBe(false) // 17:00 EST
  })
  it("no schedule, disabled, or no slots: always open", () => {
    expect(isWithinSchedule(null, 0)).toBe(true)
    expect(isWithinSchedule({ ...weekdays, enabled: false }, at("2026-11-22T00:00:00Z"))).toBe(true)
  })
  it("a contact's own zone overrides the schedule's", () => {
    expect(isWithinSchedule(weekdays, at("2026-11-23T14:00:00Z"), "Asia/Tokyo")).toBe(false) // 23:00 in Tokyo
    expect(isWithinSchedule(weekdays, at("2026-11-23T00:30:00Z"), "Asia/Tokyo")).toBe(true) // Monday 09:30 in Tokyo
  })
  it("overnight slots run into the next day; 24:00 ends at midnight", () => {
    const nights = schedule("UTC", [4, "22:00", "02:00"]) // Friday 22:00 → Saturday 02:00
    expect(isWithinSchedule(nights, at("2026-11-27T23:00:00Z"))).toBe(true) // Friday
    expect(isWithinSchedule(nights, at("2026-11-28T01:59:00Z"))).toBe(true) // Saturday
    expect(isWithinSchedule(nights, at("2026-11-28T02:00:00Z"))).toBe(false)
    expect(isWithinSchedule(nights, at("2026-11-27T21:59:00Z"))).toBe(false)
    const late = schedule("UTC", [0, "20:00", "24:00"])
    expect(isWithinSchedule(late, at("2026-11-23T23:59:00Z"))).toBe(true)
    expect(isWithinSchedule(late, at("2026-11-24T00:00:00Z"))).toBe(false)
  })
  it("follows daylight saving: 09:00 local is 14:00Z in winter and 13:00Z in summer", () => {
    const daily = schedule("America/New_York", ...[0, 1, 2, 3, 4, 5, 6].map((d) => [d, "09:00", "10:00"] as [number, string, string]))
    expect(isWithinSchedule(daily, at("2026-03-07T14:30:00Z"))).toBe(true) // Saturday, EST
    expect(isWithinSchedule(daily, at("2026-03-09T13:30:00Z"))).toBe(true) // Monday, EDT
    expect(isWithinSchedule(daily, at("2026-03-09T14:30:00Z"))).toBe(false)
  })
})

describe("nextWindowStart", () => {
  it("is now when inside, else the next opening", () => {
    const weekdays = schedule("America/New_York", [0, "09:00", "17:00"])
    expect(nextWindowStart(weekdays, at("2026-11-23T15:00:00Z"))).toBe(at("2026-11-23T15:00:00Z"))
    expect(nextWindowStart(weekdays, at("2026-11-22T12:00:00Z"))).toBe(at("2026-11-23T14:00:00Z"))
    expect(nextWindowStart(weekdays, at("2026-11-23T22:00:00Z"))).toBe(at("2026-11-30T14:00:00Z"))
  })
  it("spring forward: a 02:30 start that does not exist opens when the clock jumps (03:00 EDT)", () => {
    const sunday = schedule("America/New_York", [6, "02:30", "04:00"])
    expect(nextWindowStart(sunday, at("2026-03-08T05:00:00Z"))).toBe(at("2026-03-08T07:00:00Z"))
  })
  it("fall back: a 01:30 start that happens twice opens at its first occurrence (EDT)", () => {
    const sunday = schedule("America/New_York", [6, "01:30", "03:00"])
    expect(nextWindowStart(sunday, at("2026-11-01T04:00:00Z"))).toBe(at("2026-11-01T05:30:00Z"))
  })
  it("is always ≥ now, inside a window, and equal to now exactly when now is inside (property)", () => {
    const zones = ["UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe"]
    const time = FastCheck.tuple(FastCheck.integer({ min: 0, max: 23 }), FastCheck.integer({ min: 0, max: 59 }))
      .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`)
    const slot = FastCheck.tuple(FastCheck.integer({ min: 0, max: 6 }), time, time).filter(([, s, e]) => s !== e)
    FastCheck.assert(FastCheck.property(
      FastCheck.constantFrom(...zones),
      FastCheck.array(slot, { minLength: 1, maxLength: 4 }),
      FastCheck.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
      (zone, slots, now) => {
        const s = schedule(zone, ...slots)
        const next = nextWindowStart(s, now)
        expect(next).not.toBeNull()
        expect(next!).toBeGreaterThanOrEqual(now)
        expect(isWithinSchedule(s, next!)).toBe(true)
        expect(next === now).toBe(isWithinSchedule(s, now))
      }
    ), { numRuns: 300 })
  })
})
