import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck, Schema } from "effect"
import { dayOfWeek, ScheduleSlot, TimeSlot, TimeSlots } from "../../src/campaigns/CampaignSettings.js"

const decodeSlot = Schema.decodeUnknownEither(TimeSlot)

describe("time_slots: the descriptive alias of schedule slots", () => {
  it.each([
    ["monday", 0], ["Mon", 0], ["TUESDAY", 1], ["wed", 2], [" Thursday ", 3], ["fri", 4], ["saturday", 5], ["SUN", 6],
    ["funday", undefined], ["mo", undefined], ["", undefined], ["0", undefined], ["tues", undefined]
  ] as const)("dayOfWeek(%j) = %j", (name, expected) => {
    expect(dayOfWeek(name)).toBe(expected)
  })

  it("a time slot decodes to the schedule slot with the same day and times, or fails where that would", () => {
    const clock = (m: number) => `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`
    FastCheck.assert(FastCheck.property(
      FastCheck.constantFrom("monday", "Tue", "WEDNESDAY", "thu", "friday", "sat", "Sunday"),
      FastCheck.integer({ min: 0, max: 1439 }),
      FastCheck.integer({ min: 0, max: 1440 }),
      (day, startMinute, endMinute) => {
        const slot = { day_of_week: dayOfWeek(day)!, start_time: clock(startMinute), end_time: clock(endMinute) }
        const decoded = decodeSlot({ day, start: slot.start_time, end: slot.end_time })
        const direct = Schema.decodeUnknownEither(ScheduleSlot)(slot)
        expect(Either.isRight(decoded)).toBe(Either.isRight(direct))
        if (Either.isRight(decoded)) expect(decoded.right).toEqual(slot)
      }
    ))
  })

  it("refuses what a schedule slot refuses, naming the alias's fields", () => {
    const messages = (input: unknown) =>
      Either.match(Schema.decodeUnknownEither(TimeSlots, { errors: "all" })(input), {
        onLeft: (e) => e.message,
        onRight: () => "decoded"
      })
    expect(messages([])).toContain("time_slots must have between 1 and 50 entries")
    expect(messages(Array.from({ length: 51 }, () => ({ day: "mon", start: "09:00", end: "10:00" })))).toContain("between 1 and 50")
    expect(messages([{ day: "mon", start: "24:00", end: "10:00" }])).toContain("start must be a 24-hour time")
    expect(messages([{ day: "mon", start: "09:00", end: "09:00" }])).toContain("end must differ from start")
    expect(messages([{ day_of_week: 0, start_time: "09:00", end_time: "10:00" }])).toContain("is missing")
  })
})
