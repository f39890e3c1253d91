import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { isWithinSchedule, nextWindowStart } from "../../src/campaigns/CallingWindow.js"
import type { ScheduleConfig } from "@agentline/api/campaigns/CampaignSettings"

type Slot = readonly [day: number, start: string, end: string]

const schedule = (timezone: string, ...slots: ReadonlyArray<Slot>): ScheduleConfig => ({
  enabled: true,
  timezone,
  slots: slots.map(([day_of_week, start_time, end_time]) => ({ day_of_week, start_time, end_time }))
})
const at = (iso: string) => Date.parse(iso)
const iso = (millis: number | null) => (millis === null ? null : new Date(millis).toISOString())
const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

// Reference dates: 2026-11-23 is a Monday; 2026-03-08 and 2026-11-01 are the US daylight-saving Sundays
// (02:00 EST → 03:00 EDT at 07:00Z; 02:00 EDT → 01:00 EST at 06:00Z); Europe/London changes at 01:00Z on
// 2026-03-29 and 2026-10-25; Australia/Lord_Howe moves by 30 minutes (02:00 → 02:30 at 2026-10-03T15:30Z,
// 02:00 → 01:30 at 2026-04-04T15:00Z).

describe("isWithinSchedule", () => {
  it("day_of_week 0 is Monday … 6 is Sunday", () => {
    for (let day = 0; day <= 6; day++) {
      const allDay = schedule("UTC", [day, "00:00", "24:00"])
      for (let k = 0; k <= 6; k++) {
        expect(isWithinSchedule(allDay, at("2026-11-23T12:00:00Z") + k * DAY), `slot day ${day}, Monday+${k}`).toBe(k === day)
      }
    }
  })

  it("evaluates in the schedule's zone, start-inclusive and end-exclusive to the millisecond", () => {
    const monday = schedule("America/New_York", [0, "09:00", "17:00"])
    expect(isWithinSchedule(monday, at("2026-11-23T13:59:59.999Z"))).toBe(false)
    expect(isWithinSchedule(monday, at("2026-11-23T14:00:00.000Z"))).toBe(true) // 09:00 EST
    expect(isWithinSchedule(monday, at("2026-11-23T21:59:59.999Z"))).toBe(true)
    expect(isWithinSchedule(monday, at("2026-11-23T22:00:00.000Z"))).toBe(false) // 17:00 EST
    expect(isWithinSchedule(monday, at("2026-11-24T15:00:00Z"))).toBe(false) // Tuesday
  })

  it("always open without a schedule, when disabled, or without slots", () => {
    const monday = schedule("America/New_York", [0, "09:00", "17:00"])
    const sunday = at("2026-11-22T03:00:00Z")
    expect(isWithinSchedule(null, sunday)).toBe(true)
    expect(isWithinSchedule({ ...monday, enabled: false }, sunday)).toBe(true)
    expect(isWithinSchedule({ ...monday, slots: [] }, sunday)).toBe(true)
    expect(isWithinSchedule(monday, sunday)).toBe(false)
  })

  it("overnight slots run into the next day: Friday 22:00–02:00 covers Saturday 01:00", () => {
    const nights = schedule("UTC", [4, "22:00", "02:00"])
    expect(isWithinSchedule(nights, at("2026-11-27T21:59:00Z"))).toBe(false) // Friday
    expect(isWithinSchedule(nights, at("2026-11-27T22:00:00Z"))).toBe(true)
    expect(isWithinSchedule(nights, at("2026-11-27T23:59:59Z"))).toBe(true)
    expect(isWithinSchedule(nights, at("2026-11-28T00:00:00Z"))).toBe(true) // Saturday
    expect(isWithinSchedule(nights, at("2026-11-28T01:00:00Z"))).toBe(true)
    expect(isWithinSchedule(nights, at("2026-11-28T02:00:00Z"))).toBe(false)
    expect(isWithinSchedule(nights, at("2026-11-28T23:00:00Z"))).toBe(false) // Saturday night is not Friday night
    expect(isWithinSchedule(nights, at("2026-11-27T01:00:00Z"))).toBe(false) // Friday morning belongs to Thursday
  })

  it("a Sunday overnight slot ends on Monday morning", () => {
    const sundayNight = schedule("UTC", [6, "23:00", "01:30"])
    expect(isWithinSchedule(sundayNight, at("2026-11-29T23:30:00Z"))).toBe(true) // Sunday
    expect(isWithinSchedule(sundayNight, at("2026-11-30T01:29:00Z"))).toBe(true) // Monday
    expect(isWithinSchedule(sundayNight, at("2026-11-30T01:30:00Z"))).toBe(false)
    expect(isWithinSchedule(sundayNight, at("2026-11-23T01:00:00Z"))).toBe(true) // the Monday of the week before too
  })

  it("24:00 ends at midnight; 00:00–24:00 is the whole day; 22:00–00:00 equals 22:00–24:00", () => {
    const late = schedule("UTC", [0, "20:00", "24:00"])
    expect(isWithinSchedule(late, at("2026-11-23T23:59:59.999Z"))).toBe(true)
    expect(isWithinSchedule(late, at("2026-11-24T00:00:00Z"))).toBe(false)
    const whole = schedule("UTC", [0, "00:00", "24:00"])
    expect(isWithinSchedule(whole, at("2026-11-23T00:00:00Z"))).toBe(true)
    expect(isWithinSchedule(whole, at("2026-11-23T23:59:59.999Z"))).toBe(true)
    expect(isWithinSchedule(whole, at("2026-11-22T23:59:59.999Z"))).toBe(false)
    const toMidnight = schedule("UTC", [0, "22:00", "00:00"])
    for (const t of ["2026-11-23T21:59:59Z", "2026-11-23T22:00:00Z", "2026-11-23T23:59:59Z", "2026-11-24T00:00:00Z"]) {
      expect(isWithinSchedule(toMidnight, at(t)), t).toBe(isWithinSchedule(schedule("UTC", [0, "22:00", "24:00"]), at(t)))
    }
  })

  it("a contact's own zone overrides the schedule's; an empty one does not", () => {
    const monday = schedule("America/New_York", [0, "09:00", "17:00"])
    expect(isWithinSchedule(monday, at("2026-11-23T14:00:00Z"))).toBe(true) // 09:00 New York
    expect(isWithinSchedule(monday, at("2026-11-23T14:00:00Z"), "Asia/Tokyo")).toBe(false) // 23:00 Tokyo
    expect(isWithinSchedule(monday, at("2026-11-23T00:30:00Z"), "Asia/Tokyo")).toBe(true) // Monday 09:30 Tokyo
    expect(isWithinSchedule(monday, at("2026-11-23T00:30:00Z"))).toBe(false) // Sunday 19:30 New York
    expect(isWithinSchedule(monday, at("2026-11-23T14:00:00Z"), "")).toBe(true)
    expect(isWithinSchedule(monday, at("2026-11-23T14:00:00Z"), null)).toBe(true)
    expect(isWithinSchedule(monday, at("2026-11-23T14:00:00Z"), undefined)).toBe(true)
  })

  it("unknown zones fail closed (never open), unless there is no schedule at all", () => {
    const always = schedule("Mars/Olympus", ...[0, 1, 2, 3, 4, 5, 6].map((d): Slot => [d, "00:00", "24:00"]))
    expect(isWithinSchedule(always, at("2026-11-23T12:00:00Z"))).toBe(false)
    expect(nextWindowStart(always, at("2026-11-23T12:00:00Z"))).toBeNull()
    const utc = schedule("UTC", [0, "00:00", "24:00"])
    expect(isWithinSchedule(utc, at("2026-11-23T12:00:00Z"), "Not/AZone")).toBe(false)
    expect(nextWindowStart(utc, at("2026-11-23T12:00:00Z"), "Not/AZone")).toBeNull()
    expect(isWithinSchedule(null, at("2026-11-23T12:00:00Z"), "Not/AZone")).toBe(true)
  })

  it("follows daylight saving: 09:00 New York is 14:00Z in winter and 13:00Z in summer", () => {
    const daily = schedule("America/New_York", ...[0, 1, 2, 3, 4, 5, 6].map((d): Slot => [d, "09:00", "10:00"]))
    expect(isWithinSchedule(daily, at("2026-03-07T14:30:00Z"))).toBe(true) // Saturday, EST
    expect(isWithinSchedule(daily, at("2026-03-07T13:30:00Z"))).toBe(false)
    expect(isWithinSchedule(daily, at("2026-03-09T13:30:00Z"))).toBe(true) // Monday, EDT
    expect(isWithinSchedule(daily, at("2026-03-09T14:30:00Z"))).toBe(false)
    expect(isWithinSchedule(daily, at("2026-11-02T14:30:00Z"))).toBe(true) // Monday, EST again
  })

  it("spring forward: a slot ending inside the skipped hour closes at the jump", () => {
    const early = schedule("America/New_York", [6, "01:30", "02:30"])
    expect(isWithinSchedule(early, at("2026-03-08T06:30:00Z"))).toBe(true) // 01:30 EST
    expect(isWithinSchedule(early, at("2026-03-08T06:59:59.999Z"))).toBe(true) // 01:59:59.999 EST
    expect(isWithinSchedule(early, at("2026-03-08T07:00:00Z"))).toBe(false) // 03:00 EDT
  })

  it("fall back: a slot in the repeated hour is open during both occurrences", () => {
    const repeated = schedule("America/New_York", [6, "01:00", "02:00"])
    expect(isWithinSchedule(repeated, at("2026-11-01T04:59:59Z"))).toBe(false) // 00:59 EDT
    expect(isWithinSchedule(repeated, at("2026-11-01T05:00:00Z"))).toBe(true) // 01:00 EDT
    expect(isWithinSchedule(repeated, at("2026-11-01T06:30:00Z"))).toBe(true) // 01:30 EST, the second time
    expect(isWithinSchedule(repeated, at("2026-11-01T06:59:59Z"))).toBe(true)
    expect(isWithinSchedule(repeated, at("2026-11-01T07:00:00Z"))).toBe(false) // 02:00 EST
  })
})

describe("nextWindowStart", () => {
  const monday = schedule("America/New_York", [0, "09:00", "17:00"])

  it("is now when inside, else the next opening", () => {
    expect(iso(nextWindowStart(monday, at("2026-11-23T15:00:00Z")))).toBe("2026-11-23T15:00:00.000Z")
    expect(iso(nextWindowStart(monday, at("2026-11-22T12:00:00Z")))).toBe("2026-11-23T14:00:00.000Z")
    expect(iso(nextWindowStart(monday, at("2026-11-23T13:59:59.999Z")))).toBe("2026-11-23T14:00:00.000Z")
    expect(iso(nextWindowStart(monday, at("2026-11-23T22:00:00Z")))).toBe("2026-11-30T14:00:00.000Z") // a week later
  })

  it("is now without a schedule, when disabled or without slots", () => {
    const now = at("2026-11-22T12:00:00Z")
    expect(nextWindowStart(null, now)).toBe(now)
    expect(nextWindowStart({ ...monday, enabled: false }, now)).toBe(now)
    expect(nextWindowStart({ ...monday, slots: [] }, now)).toBe(now)
  })

  it("picks the earliest of several slots", () => {
    const week = schedule("UTC", [2, "10:00", "11:00"], [0, "15:00", "16:00"], [1, "08:00", "09:00"])
    expect(iso(nextWindowStart(week, at("2026-11-23T12:00:00Z")))).toBe("2026-11-23T15:00:00.000Z") // Monday
    expect(iso(nextWindowStart(week, at("2026-11-23T16:00:00Z")))).toBe("2026-11-24T08:00:00.000Z") // Tuesday
    expect(iso(nextWindowStart(week, at("2026-11-24T09:00:00Z")))).toBe("2026-11-25T10:00:00.000Z") // Wednesday
  })

  it("overnight: inside on the next morning, and the following Friday evening once it closed", () => {
    const nights = schedule("UTC", [4, "22:00", "02:00"])
    expect(iso(nextWindowStart(nights, at("2026-11-28T01:00:00Z")))).toBe("2026-11-28T01:00:00.000Z")
    expect(iso(nextWindowStart(nights, at("2026-11-28T02:00:00Z")))).toBe("2026-12-04T22:00:00.000Z")
  })

  it("in the contact's zone when it has one", () => {
    // Monday 23:00 in Tokyo: the next Monday 09:00 Tokyo.
    expect(iso(nextWindowStart(monday, at("2026-11-23T14:00:00Z"), "Asia/Tokyo"))).toBe("2026-11-30T00:00:00.000Z")
    // Sunday 21:00 in Tokyo: Monday 09:00 Tokyo, hours before the New York window.
    expect(iso(nextWindowStart(monday, at("2026-11-22T12:00:00Z"), "Asia/Tokyo"))).toBe("2026-11-23T00:00:00.000Z")
  })

  describe("spring forward (America/New_York, 2026-03-08: 02:00 EST jumps to 03:00 EDT)", () => {
    it("a 02:30 start does not exist that day: the slot opens at the jump, 03:00 EDT", () => {
      const sunday = schedule("America/New_York", [6, "02:30", "04:00"])
      expect(iso(nextWindowStart(sunday, at("2026-03-08T05:00:00Z")))).toBe("2026-03-08T07:00:00.000Z")
      expect(isWithinSchedule(sunday, at("2026-03-08T06:59:59.999Z"))).toBe(false)
      expect(isWithinSchedule(sunday, at("2026-03-08T07:00:00Z"))).toBe(true)
      // A week later 02:30 exists again (EDT).
      expect(iso(nextWindowStart(sunday, at("2026-03-08T08:00:00Z")))).toBe("2026-03-15T06:30:00.000Z")
    })
    it("a slot lying entirely inside the skipped hour does not open that day", () => {
      const gap = schedule("America/New_York", [6, "02:10", "02:50"])
      expect(iso(nextWindowStart(gap, at("2026-03-08T05:00:00Z")))).toBe("2026-03-15T06:10:00.000Z")
    })
    it("a slot after the jump starts an hour earlier in UTC than the week before", () => {
      const nine = schedule("America/New_York", [6, "09:00", "10:00"])
      expect(iso(nextWindowStart(nine, at("2026-03-01T15:00:00Z")))).toBe("2026-03-08T13:00:00.000Z")
      expect(iso(nextWindowStart(nine, at("2026-02-28T00:00:00Z")))).toBe("2026-03-01T14:00:00.000Z")
    })
    it("the same in London (01:00 GMT jumps to 02:00 BST on 2026-03-29)", () => {
      expect(iso(nextWindowStart(schedule("Europe/London", [6, "01:30", "03:00"]), at("2026-03-28T23:00:00Z")))).toBe(
        "2026-03-29T01:00:00.000Z"
      )
      expect(iso(nextWindowStart(schedule("Europe/London", [6, "01:15", "01:45"]), at("2026-03-28T23:00:00Z")))).toBe(
        "2026-04-05T00:15:00.000Z"
      )
    })
    it("and with a 30-minute shift (Lord Howe, 02:00 jumps to 02:30 on 2026-10-04)", () => {
      expect(iso(nextWindowStart(schedule("Australia/Lord_Howe", [6, "02:10", "03:00"]), at("2026-10-03T12:00:00Z")))).toBe(
        "2026-10-03T15:30:00.000Z"
      )
      expect(iso(nextWindowStart(schedule("Australia/Lord_Howe", [6, "02:10", "02:20"]), at("2026-10-03T12:00:00Z")))).toBe(
        "2026-10-10T15:10:00.000Z"
      )
    })
  })

  describe("fall back (America/New_York, 2026-11-01: 02:00 EDT goes back to 01:00 EST)", () => {
    const sunday = schedule("America/New_York", [6, "01:30", "01:45"])
    it("a 01:30 start that happens twice opens at its first occurrence (EDT)", () => {
      expect(iso(nextWindowStart(sunday, at("2026-11-01T04:00:00Z")))).toBe("2026-11-01T05:30:00.000Z")
    })
    it("after the first occurrence closes, the second one (EST) is the next opening, not next week", () => {
      expect(iso(nextWindowStart(sunday, at("2026-11-01T05:50:00Z")))).toBe("2026-11-01T06:30:00.000Z")
      expect(iso(nextWindowStart(sunday, at("2026-11-01T06:40:00Z")))).toBe("2026-11-01T06:40:00.000Z")
      expect(iso(nextWindowStart(sunday, at("2026-11-01T06:45:00Z")))).toBe("2026-11-08T06:30:00.000Z")
    })
    it("a slot after the change starts an hour later in UTC", () => {
      const nine = schedule("America/New_York", [6, "09:00", "10:00"])
      expect(iso(nextWindowStart(nine, at("2026-10-31T12:00:00Z")))).toBe("2026-11-01T14:00:00.000Z")
      expect(iso(nextWindowStart(nine, at("2026-10-24T12:00:00Z")))).toBe("2026-10-25T13:00:00.000Z")
    })
    it("the same in Lord Howe (02:00 goes back to 01:30 on 2026-04-05)", () => {
      const repeated = schedule("Australia/Lord_Howe", [6, "01:40", "01:50"])
      expect(iso(nextWindowStart(repeated, at("2026-04-04T14:30:00Z")))).toBe("2026-04-04T14:40:00.000Z") // +11:00
      expect(iso(nextWindowStart(repeated, at("2026-04-04T14:55:00Z")))).toBe("2026-04-04T15:10:00.000Z") // +10:30
    })
  })
})

// ------------------------------------------------------------------------------------------ properties

const ZONES = [
  "UTC",
  "America/New_York",
  "Europe/London",
  "Asia/Kolkata",
  "Australia/Lord_Howe",
  "Australia/Sydney",
  "America/Santiago",
  "Pacific/Chatham"
]
// Clock changes in 2026, each on a Sunday night local time, with the zone it happens in.
const ZONE_CHANGES: ReadonlyArray<readonly [zone: string, change: number]> = [
  ["America/New_York", at("2026-03-08T07:00:00Z")], // 02:00 → 03:00
  ["America/New_York", at("2026-11-01T06:00:00Z")], // 02:00 → 01:00
  ["Europe/London", at("2026-03-29T01:00:00Z")], // 01:00 → 02:00
  ["Europe/London", at("2026-10-25T01:00:00Z")], // 02:00 → 01:00
  ["Australia/Lord_Howe", at("2026-10-03T15:30:00Z")], // 02:00 → 02:30
  ["Australia/Lord_Howe", at("2026-04-04T15:00:00Z")], // 02:00 → 01:30
  ["Australia/Sydney", at("2026-10-03T16:00:00Z")], // 02:00 → 03:00
  ["Australia/Sydney", at("2026-04-04T16:00:00Z")] // 03:00 → 02:00
]
const CHANGES = ZONE_CHANGES.map(([, change]) => change)

const time = FastCheck.tuple(FastCheck.integer({ min: 0, max: 23 }), FastCheck.constantFrom(0, 1, 15, 30, 45, 59))
  .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`)
const endTime = FastCheck.oneof(time, FastCheck.constant("24:00"))
const slot = FastCheck.tuple(FastCheck.integer({ min: 0, max: 6 }), time, endTime).filter(([, s, e]) => s !== e)
const anySchedule = FastCheck.tuple(FastCheck.constantFrom(...ZONES), FastCheck.array(slot, { minLength: 1, maxLength: 5 }))
  .map(([zone, slots]) => schedule(zone, ...slots))
const instant = FastCheck.oneof(
  FastCheck.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2028, 0, 1) }),
  FastCheck.tuple(FastCheck.constantFrom(...CHANGES), FastCheck.integer({ min: -3 * DAY, max: 3 * DAY }))
    .map(([change, delta]) => change + delta),
  // Exactly on a minute near a change: slot boundaries and transitions fall on whole minutes.
  FastCheck.tuple(FastCheck.constantFrom(...CHANGES), FastCheck.integer({ min: -180, max: 180 }))
    .map(([change, minutes]) => change + minutes * MINUTE)
)
const override = FastCheck.option(FastCheck.constantFrom(...ZONES), { nil: undefined })

/** Slots in the small hours of Saturday night and Sunday, next to a zone's clock change, and times around it. */
const nightTime = FastCheck.tuple(FastCheck.constantFrom(1, 2, 3, 23), FastCheck.constantFrom(0, 15, 30, 45))
  .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`)
const nightSlot = FastCheck.tuple(FastCheck.constantFrom(5, 6), nightTime, nightTime).filter(([, s, e]) => s !== e)
const aroundChange = FastCheck.tuple(
  FastCheck.constantFrom(...ZONE_CHANGES),
  FastCheck.array(nightSlot, { minLength: 1, maxLength: 2 }),
  FastCheck.integer({ min: -4 * 60, max: 3 * 60 })
).map(([[zone, change], slots, minutes]) => ({ s: schedule(zone, ...slots), t: change + minutes * MINUTE }))

/** An independent reading of local wall time through Intl, and the slot rule written out again. */
const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
const oracleWithin = (s: ScheduleConfig, millis: number, zone?: string): boolean => {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone ?? s.timezone,
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23"
  }).formatToParts(millis)
  const get = (type: string) => parts.find((p) => p.type === type)!.value
  const day = WEEKDAYS.indexOf(get("weekday"))
  const hhmm = `${get("hour")}:${get("minute")}`
  return s.slots.some(({ day_of_week, end_time, start_time }) =>
    start_time < end_time
      ? day === day_of_week && hhmm >= start_time && hhmm < end_time
      : (day === day_of_week && hhmm >= start_time) || (day === (day_of_week + 1) % 7 && hhmm < end_time)
  )
}

describe("properties", () => {
  it("isWithinSchedule agrees with an independent Intl reading of the local time", () => {
    FastCheck.assert(
      FastCheck.property(anySchedule, instant, override, (s, t, zone) => {
        expect(isWithinSchedule(s, t, zone)).toBe(oracleWithin(s, t, zone))
      }),
      { numRuns: 500 }
    )
  })

  it("nextWindowStart is ≥ now and inside a window; it is now exactly when now is inside", () => {
    FastCheck.assert(
      FastCheck.property(anySchedule, instant, override, (s, t, zone) => {
        const next = nextWindowStart(s, t, zone)
        expect(next).not.toBeNull()
        expect(next!).toBeGreaterThanOrEqual(t)
        // A week, or two when the coming occurrence falls in a skipped hour.
        expect(next! - t).toBeLessThanOrEqual(14 * DAY + 60 * MINUTE)
        expect(isWithinSchedule(s, next!, zone)).toBe(true)
        expect(next === t).toBe(isWithinSchedule(s, t, zone))
      }),
      { numRuns: 400 }
    )
  })

  it("nextWindowStart is the earliest such instant: no whole minute between now and it is inside", () => {
    // Openings are whole minutes (slot times are, and so are zone offsets and their changes), so
    // checking every minute in between is complete.
    FastCheck.assert(
      FastCheck.property(anySchedule, instant, override, (s, t, zone) => {
        const next = nextWindowStart(s, t, zone)!
        for (let m = Math.floor(t / MINUTE) * MINUTE + MINUTE; m < next; m += MINUTE) {
          if (isWithinSchedule(s, m, zone)) expect.fail(`${iso(m)} is inside but next was ${iso(next)} (now ${iso(t)})`)
        }
      }),
      { numRuns: 40 }
    )
  }, 30_000)

  it("around clock changes: nextWindowStart opens inside, at the earliest minute", () => {
    FastCheck.assert(
      FastCheck.property(aroundChange, ({ s, t }) => {
        const next = nextWindowStart(s, t)
        expect(next).not.toBeNull()
        expect(next!).toBeGreaterThanOrEqual(t)
        expect(isWithinSchedule(s, next!)).toBe(true)
        expect(isWithinSchedule(s, next!)).toBe(oracleWithin(s, next!))
        expect(next === t).toBe(isWithinSchedule(s, t))
        for (let m = Math.floor(t / MINUTE) * MINUTE + MINUTE; m < next!; m += MINUTE) {
          if (isWithinSchedule(s, m)) expect.fail(`${iso(m)} is inside but next was ${iso(next)} (now ${iso(t)})`)
        }
      }),
      { numRuns: 120 }
    )
  }, 30_000)

  it("a disabled schedule never restricts", () => {
    FastCheck.assert(
      FastCheck.property(anySchedule, instant, (s, t) => {
        const off = { ...s, enabled: false }
        expect(isWithinSchedule(off, t)).toBe(true)
        expect(nextWindowStart(off, t)).toBe(t)
      })
    )
  })
})
