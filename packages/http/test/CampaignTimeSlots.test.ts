/**
 * `time_slots` (defect 9.5): the spec's descriptive alias of `schedule_config.slots` (day names,
 * 24-hour times) becomes the campaign's schedule, is refused with 422 when invalid or sent together
 * with `schedule_config`, and is never ignored: a campaign with slots dials only inside them.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { attemptsPerContact, csvOf, numbers, settle, setupDialing, uploadCsv } from "./DispatchHarness.js"
import { call, dialects, TestApp } from "./Harness.js"

const campaignBody = (agentId: number, sourceId: string, extra: Record<string, unknown>) => ({
  name: "Slots",
  workflow_id: agentId,
  source_type: "csv",
  source_id: sourceId,
  ...extra
})

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Campaign time_slots [${dialect}]`, (it) => {
    it.effect("time_slots becomes schedule_config.slots on create and on update", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const key = yield* uploadCsv(setup.principal, csvOf(numbers(1)))
        const created = yield* call("POST", "/api/v1/campaign/create", {
          apiKey: setup.apiKey,
          body: campaignBody(setup.agent.id, key, {
            time_slots: [{ day: "Monday", start: "09:00", end: "17:30" }, { day: "sat", start: "22:00", end: "02:00" }]
          })
        })
        expect(created.status, JSON.stringify(created.body)).toBe(200)
        expect(created.body.schedule_config).toEqual({
          enabled: true,
          timezone: "UTC",
          slots: [
            { day_of_week: 0, start_time: "09:00", end_time: "17:30" },
            { day_of_week: 5, start_time: "22:00", end_time: "02:00" }
          ]
        })
        const updated = yield* call("PATCH", `/api/v1/campaign/${created.body.id}`, {
          apiKey: setup.apiKey,
          body: { time_slots: [{ day: "SUNDAY", start: "00:00", end: "24:00" }] }
        })
        expect(updated.status, JSON.stringify(updated.body)).toBe(200)
        expect(updated.body.schedule_config.slots).toEqual([{ day_of_week: 6, start_time: "00:00", end_time: "24:00" }])
        const fetched = yield* call("GET", `/api/v1/campaign/${created.body.id}`, { apiKey: setup.apiKey })
        expect(fetched.body.schedule_config).toEqual(updated.body.schedule_config)
      }))

    it.effect("bad day names and times, an empty list, or both forms at once are 422 and create nothing", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const key = yield* uploadCsv(setup.principal, csvOf(numbers(1)))
        const create = (extra: Record<string, unknown>) =>
          call("POST", "/api/v1/campaign/create", { apiKey: setup.apiKey, body: campaignBody(setup.agent.id, key, extra) })

        const bad = yield* create({
          time_slots: [{ day: "Funday", start: "9:00", end: "25:00" }, { day: "tue", start: "10:00", end: "10:00" }]
        })
        expect(bad.status).toBe(422)
        expect(bad.body.detail.map((d: { readonly loc: ReadonlyArray<string | number>; readonly msg: string }) => [d.loc.join("."), d.msg])).toEqual([
          ["body.time_slots.0.day", "day must be a day name: monday, tuesday, wednesday, thursday, friday, saturday, sunday (or its first three letters)"],
          ["body.time_slots.0.start", "start must be a 24-hour time HH:MM from 00:00 to 23:59"],
          ["body.time_slots.0.end", "end must be a 24-hour time HH:MM from 00:00 to 24:00"],
          ["body.time_slots.1.end", "end must differ from start (an end before the start runs overnight; 00:00–24:00 is a full day)"]
        ])
        const empty = yield* create({ time_slots: [] })
        expect(empty.status).toBe(422)
        expect(empty.body.detail[0].loc).toEqual(["body", "time_slots"])
        const both = yield* create({
          time_slots: [{ day: "monday", start: "09:00", end: "17:00" }],
          schedule_config: { timezone: "Europe/Berlin", slots: [{ day_of_week: 1, start_time: "09:00", end_time: "17:00" }] }
        })
        expect(both.status).toBe(422)
        expect(both.body.detail).toMatchObject([{ loc: ["body", "time_slots"], type: "value_error" }])
        expect(both.body.detail[0].msg).toContain("alias of schedule_config.slots")
        const bothNull = yield* create({ time_slots: [{ day: "monday", start: "09:00", end: "17:00" }], schedule_config: null })
        expect(bothNull.status).toBe(422)

        const list = yield* call("GET", "/api/v1/campaign/", { apiKey: setup.apiKey })
        expect(list.body.campaigns ?? list.body).toHaveLength(0)
      }))

    it.effect("a campaign with time_slots does not dial outside them", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const key = yield* uploadCsv(setup.principal, csvOf(numbers(2, "+1646557")))
        // The only slot opens ten minutes from now (on the TestClock) and lasts two hours.
        const opens = new Date(Math.ceil(((yield* TestClock.currentTimeMillis) + 10 * 60_000) / 60_000) * 60_000)
        const hhmm = (d: Date) => d.toISOString().slice(11, 16)
        const slot = {
          day: ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"][opens.getUTCDay()],
          start: hhmm(opens),
          end: hhmm(new Date(opens.getTime() + 2 * 60 * 60_000))
        }
        const created = yield* call("POST", "/api/v1/campaign/create", {
          apiKey: setup.apiKey,
          body: campaignBody(setup.agent.id, key, { time_slots: [slot] })
        })
        expect(created.status, JSON.stringify(created.body)).toBe(200)
        const started = yield* call("POST", `/api/v1/campaign/${created.body.id}/start`, { apiKey: setup.apiKey })
        expect(started.status, JSON.stringify(started.body)).toBe(200)
        const step = (millis: number, times: number) =>
          Effect.forEach(Array.from({ length: times }), () => Effect.zipRight(TestClock.adjust(millis), settle(20)), { discard: true })
        yield* step(60_000, 9)
        expect((yield* attemptsPerContact(created.body.id)).map((c) => c.attempts)).toEqual([0, 0])
        yield* step(60_000, 1)
        yield* step(1000, 20)
        expect((yield* attemptsPerContact(created.body.id)).map((c) => c.attempts)).toEqual([1, 1])
      }))
  })
}
