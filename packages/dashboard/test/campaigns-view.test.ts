import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { CircuitBreakerConfig, RetryConfig, ScheduleConfig } from "@agentline/api/campaigns/CampaignSettings"
import { UpdateCampaignRequest } from "@agentline/api/campaigns/Campaign"
import {
  availableActions,
  BREAKER_NUMBERS,
  breakerState,
  CONCURRENCY,
  fileProblem,
  liveFigures,
  nextOpening,
  RETRY_FLAGS,
  RETRY_NUMBERS,
  rowProblems,
  settingsForm,
  settingsRequest
} from "../src/pages/campaigns/campaignView.js"

describe("actions per state", () => {
  it("offers what the state machine allows", () => {
    expect(availableActions("draft", null)).toEqual(["start", "cancel"])
    expect(availableActions("running", null)).toEqual(["pause", "cancel"])
    expect(availableActions("paused", null)).toEqual(["resume", "cancel"])
    expect(availableActions("completed", null)).toEqual(["redial"])
    expect(availableActions("completed", 7)).toEqual([])
    expect(availableActions("canceled", null)).toEqual([])
    expect(availableActions("failed", null)).toEqual([])
  })
})

describe("settings form", () => {
  it("starts from the API's own defaults", () => {
    const defaults = {
      retry: Schema.decodeSync(RetryConfig)({}),
      breaker: Schema.decodeSync(CircuitBreakerConfig)({})
    }
    const form = settingsForm()
    for (const f of RETRY_FLAGS) expect(form.retry[f.name]).toBe(defaults.retry[f.name])
    for (const n of RETRY_NUMBERS) expect(Number(form.retry[n.name])).toBe(defaults.retry[n.name as keyof typeof defaults.retry])
    for (const n of BREAKER_NUMBERS) expect(Number(form.breaker[n.name])).toBe(defaults.breaker[n.name as keyof typeof defaults.breaker])
    expect(form.breaker.enabled).toBe(defaults.breaker.enabled)
    expect(form.scheduleEnabled).toBe(false)
    // No campaign limit unless one is given (the organization's applies), as in the API.
    expect(form.maxConcurrency).toBe("")
    const request = settingsRequest(form)
    if (!("request" in request)) throw new Error("defaults must build a request")
    expect(request.request.max_concurrency).toBeNull()
    expect(Schema.decodeUnknownEither(UpdateCampaignRequest)(request.request)._tag).toBe("Right")
  })

  it("states the API's bounds: the edges are accepted, one step beyond is refused", () => {
    const decode = (schema: Schema.Schema.AnyNoContext, value: unknown) => Schema.decodeUnknownEither(schema)(value)._tag
    for (const n of RETRY_NUMBERS) {
      expect(decode(RetryConfig, { [n.name]: n.min })).toBe("Right")
      expect(decode(RetryConfig, { [n.name]: n.max })).toBe("Right")
      expect(decode(RetryConfig, { [n.name]: n.min - n.step })).toBe("Left")
      expect(decode(RetryConfig, { [n.name]: n.max + n.step })).toBe("Left")
    }
    for (const n of BREAKER_NUMBERS) {
      expect(decode(CircuitBreakerConfig, { [n.name]: n.min })).toBe("Right")
      expect(decode(CircuitBreakerConfig, { [n.name]: n.max })).toBe("Right")
      expect(decode(CircuitBreakerConfig, { [n.name]: n.max + n.step })).toBe("Left")
    }
    expect(decode(CircuitBreakerConfig, { failure_threshold: 0 })).toBe("Left")
    expect(decode(UpdateCampaignRequest, { max_concurrency: CONCURRENCY.min })).toBe("Right")
    expect(decode(UpdateCampaignRequest, { max_concurrency: CONCURRENCY.max })).toBe("Right")
    expect(decode(UpdateCampaignRequest, { max_concurrency: CONCURRENCY.max + 1 })).toBe("Left")
  })

  it("builds a request the API decodes, and round-trips a campaign's settings", () => {
    const campaign = {
      retry_config: { enabled: true, max_retries: 0, retry_delay_seconds: 5, retry_on_busy: false, retry_on_no_answer: true, retry_on_voicemail: false },
      circuit_breaker: { enabled: false, failure_threshold: 0.9, window_seconds: 60, min_calls_in_window: 3 },
      max_concurrency: 3,
      schedule_config: { enabled: true, timezone: "Europe/Paris", slots: [{ day_of_week: 0, start_time: "09:00", end_time: "17:00" }] }
    }
    const result = settingsRequest(settingsForm(campaign))
    if (!("request" in result)) throw new Error(JSON.stringify(result.errors))
    expect(result.request).toEqual(campaign)
    expect(Schema.decodeUnknownEither(UpdateCampaignRequest)(result.request)._tag).toBe("Right")
    expect(Schema.decodeUnknownEither(ScheduleConfig)(result.request.schedule_config)._tag).toBe("Right")
  })

  it("names the fields that are not numbers yet, with the API's paths", () => {
    const form = settingsForm()
    const result = settingsRequest({ ...form, retry: { ...form.retry, max_retries: "" }, maxConcurrency: "x", scheduleEnabled: true })
    expect(result).toEqual({
      errors: {
        "retry_config.max_retries": expect.any(String),
        max_concurrency: expect.any(String),
        "schedule_config.slots": expect.any(String)
      }
    })
  })
})

describe("live view", () => {
  const log = (event: string, message = event) => ({ ts: "2026-01-01T00:00:00Z", level: "info", event, message, details: {} })
  const breaker = { enabled: true, failure_threshold: 0.5, window_seconds: 120, min_calls_in_window: 5 }

  it("reads the breaker's state from its settings and the log", () => {
    expect(breakerState({ state: "running", circuit_breaker: { ...breaker, enabled: false }, logs: [] })).toEqual({ state: "disabled" })
    expect(breakerState({ state: "running", circuit_breaker: breaker, logs: [log("campaign_started")] }))
      .toEqual({ state: "closed", threshold: 0.5, windowSeconds: 120, minCalls: 5 })
    const tripped = [log("campaign_started"), log("circuit_breaker_tripped", "3 of 4 calls failed")]
    expect(breakerState({ state: "paused", circuit_breaker: breaker, logs: tripped }))
      .toEqual({ state: "tripped", at: "2026-01-01T00:00:00Z", message: "3 of 4 calls failed" })
    // Resumed since: closed again.
    expect(breakerState({ state: "running", circuit_breaker: breaker, logs: [...tripped, log("campaign_resumed")] }).state).toBe("closed")
    // Paused by hand after an old trip and a resume: not the breaker's doing.
    expect(breakerState({ state: "paused", circuit_breaker: breaker, logs: [...tripped, log("campaign_resumed"), log("campaign_paused")] }).state)
      .toBe("closed")
  })

  it("finds the calling window's next opening in the schedule's zone", () => {
    const schedule = { enabled: true, timezone: "America/New_York", slots: [{ day_of_week: 0, start_time: "09:00", end_time: "17:00" }] }
    // Sunday 2026-03-01 12:00 UTC = 07:00 in New York (EST): opens Monday 09:00 EST = 14:00 UTC.
    expect(nextOpening(schedule, new Date("2026-03-01T12:00:00Z"))?.toISOString()).toBe("2026-03-02T14:00:00.000Z")
    // Inside the window: now.
    const inside = new Date("2026-03-02T15:00:00Z")
    expect(nextOpening(schedule, inside)).toEqual(inside)
    // Just after it closes: next week's Monday.
    expect(nextOpening(schedule, new Date("2026-03-02T22:00:00Z"))?.toISOString()).toBe("2026-03-09T13:00:00.000Z")
    // (New York moved to EDT on 2026-03-08, so 09:00 is 13:00 UTC then.)
    // Overnight slot: Friday 22:00–02:00 covers Saturday 01:00.
    const overnight = { enabled: true, timezone: "UTC", slots: [{ day_of_week: 4, start_time: "22:00", end_time: "02:00" }] }
    const saturdayOne = new Date("2026-03-07T01:00:00Z")
    expect(nextOpening(overnight, saturdayOne)).toEqual(saturdayOne)
    // Month boundary: Saturday 2026-01-31 → Monday 2026-02-02.
    expect(nextOpening({ enabled: true, timezone: "UTC", slots: [{ day_of_week: 0, start_time: "08:30", end_time: "09:00" }] }, new Date("2026-01-31T10:00:00Z"))
      ?.toISOString()).toBe("2026-02-02T08:30:00.000Z")
    // No schedule or a disabled one: now; an unknown zone or no slots: never.
    const now = new Date("2026-03-01T00:00:00Z")
    expect(nextOpening(null, now)).toEqual(now)
    expect(nextOpening({ ...schedule, enabled: false }, now)).toEqual(now)
    expect(nextOpening({ ...schedule, timezone: "Mars/Base" }, now)).toBeNull()
    expect(nextOpening({ ...schedule, slots: [] }, now)).toBeNull()
  })

  it("computes the counters' figures", () => {
    expect(liveFigures({ total_rows: 4, processed_rows: 3, failed_rows: 1, skipped_rows: 1, executed_count: 5, total_queued_count: 7 })).toEqual({
      total: 4,
      processed: 3,
      reached: 1,
      failed: 1,
      skipped: 1,
      progress: 0.75,
      attemptsPlaced: 5,
      attemptsWaiting: 2
    })
    expect(liveFigures({ total_rows: null, processed_rows: 0, failed_rows: 0, skipped_rows: 0, executed_count: 0, total_queued_count: 0 }).progress)
      .toBeNull()
  })
})

describe("contacts file", () => {
  it("lists a refused file's problems one per item, advice kept with its problem", () => {
    const detail = "Empty phone_number in rows: 3. Invalid phone numbers in rows: 2, 5 and 3 more. Use E.164 (e.g. +14155550100), a SIP URI or an extension. " +
      "Duplicate phone numbers in rows: 4. Phone numbers in a campaign must be unique."
    expect(rowProblems(detail)).toEqual([
      "Empty phone_number in rows: 3.",
      "Invalid phone numbers in rows: 2, 5 and 3 more. Use E.164 (e.g. +14155550100), a SIP URI or an extension.",
      "Duplicate phone numbers in rows: 4. Phone numbers in a campaign must be unique."
    ])
    expect(rowProblems("Source must contain a 'phone_number' column")).toEqual(["Source must contain a 'phone_number' column"])
  })

  it("checks the file's name and size before uploading", () => {
    expect(fileProblem({ name: "contacts.CSV", size: 10 })).toBeNull()
    expect(fileProblem({ name: "contacts.xlsx", size: 10 })).toMatch(/csv/)
    expect(fileProblem({ name: "c.csv", size: 0 })).toMatch(/empty/)
  })
})

describe("upload target", () => {
  it("keeps a same-origin URL and moves another origin's path onto this page's origin", async () => {
    const { uploadTarget } = await import("../src/pages/campaigns/upload.js")
    const signed = "/api/v1/storage/upload/1/contacts/a.csv?expires=1&signature=x"
    expect(uploadTarget(`http://127.0.0.1:8000${signed}`, "http://127.0.0.1:8000")).toBe(`http://127.0.0.1:8000${signed}`)
    expect(uploadTarget(`http://public.example${signed}`, "http://127.0.0.1:8000")).toBe(`http://127.0.0.1:8000${signed}`)
    expect(uploadTarget(signed, "http://127.0.0.1:8000")).toBe(`http://127.0.0.1:8000${signed}`)
  })
})
