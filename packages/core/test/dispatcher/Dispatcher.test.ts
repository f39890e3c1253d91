/**
 * The dispatcher's rules, through the services: both concurrency limits, retries by outcome, the
 * circuit breaker, pause/resume/cancel, calling windows in the campaign's and the contact's time zone.
 * The wire (single and test calls, their statuses) is `http/test/Dispatcher.test.ts`.
 */
import type { CreateCampaignRequest } from "@agentline/api/campaigns/Campaign"
import { expect, layer } from "@effect/vitest"
import { Effect, FastCheck, TestClock } from "effect"
import {
  activeCalls,
  activeCallsSettled,
  advanceUntil,
  attemptsPerContact,
  Campaigns,
  csvOf,
  numbers,
  settle,
  setupDialing,
  uploadCsv
} from "../DispatchHarness.js"
import { dialects, TestServices } from "../Harness.js"

const createAndStart = (setup: Effect.Effect.Success<ReturnType<typeof setupDialing>>, csv: string, body: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const campaigns = yield* Campaigns
    const sourceId = yield* uploadCsv(setup.principal, csv)
    const created = yield* campaigns.create(setup.principal, {
      name: "Test campaign",
      workflow_id: setup.agent.id,
      source_type: "csv",
      source_id: sourceId,
      ...body
    } as CreateCampaignRequest)
    const started = yield* campaigns.start(setup.principal, created.id)
    return started
  }).pipe(Effect.orDie)

for (const dialect of dialects) {
  layer(TestServices(dialect), { timeout: "120 seconds" })(`Dispatcher [${dialect}]`, (it) => {
    it.effect("dials every contact within both limits and completes the moment the last call ends", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ limit: 3 })
        const phones = numbers(12)
        const campaign = yield* createAndStart(setup, csvOf(phones), { max_concurrency: 2 })
        expect(campaign.state).toBe("running")
        let peak = 0
        // Quarter-second steps: the completion's lag below is measured in them.
        const done = yield* advanceUntil(setup.principal, campaign.id, ["completed"], {
          stepMillis: 250,
          onStep: Effect.map(activeCalls({ campaignId: campaign.id }), (n) => void (peak = Math.max(peak, n)))
        })
        expect(peak).toBe(2)
        expect(done).toMatchObject({ processed_rows: 12, failed_rows: 0, executed_count: 12, total_queued_count: 12, total_rows: 12 })
        expect(done.completed_at).not.toBeNull()
        expect(done.logs.map((l) => l.event)).toEqual(["campaign_created", "campaign_started", "campaign_completed"])
        const contacts = yield* attemptsPerContact(campaign.id)
        expect(contacts.every((c) => c.state === "done" && c.attempts === 1)).toBe(true)
        const runs = yield* (yield* Campaigns).runs(setup.principal, campaign.id, 1, 100).pipe(Effect.orDie)
        expect(runs.total_count).toBe(12)
        const run = runs.runs[0]!
        expect(run).toMatchObject({ is_completed: true, call_type: "outbound", mode: "simulator" })
        expect(run.gathered_context?.outcome).toBe("completed")
        expect(run.initial_context).toMatchObject({ campaign_id: campaign.id, attempt_number: 1, direction: "outbound" })
        expect((run.logs?.telephony_status_callbacks as ReadonlyArray<{ status: string }>).map((e) => e.status)).toEqual(["initiated", "ringing", "answered", "ended"])
        expect(run.usage_info?.call_duration_seconds).toBe(2)
        // No completion lag: completed_at is the instant the last call ended (simulated time), give or take
        // the few steps the clock may take while the last end is being written on a loaded machine.
        const lastEnd = Math.max(...runs.runs.map((r) => Date.parse((r.logs?.telephony_status_callbacks as ReadonlyArray<{ timestamp: string }>).at(-1)!.timestamp)))
        expect(Date.parse(done.completed_at!) - lastEnd).toBeLessThan(1000)
      }))

    it.effect("retries busy, no answer and voicemail per their flags, after the delay, at most max_retries times", () =>
      Effect.gen(function*() {
        const rules = [
          { match: "exact" as const, pattern: "+14155561000", outcomes: ["busy", "completed"] },
          { match: "exact" as const, pattern: "+14155561001", outcomes: ["no_answer", "completed"] },
          { match: "exact" as const, pattern: "+14155561002", outcomes: ["voicemail", "completed"] },
          { match: "exact" as const, pattern: "+14155561003", outcomes: ["busy"] },
          { match: "exact" as const, pattern: "+14155561004", outcomes: ["failed"] },
          { match: "prefix" as const, pattern: "+1415557", outcomes: ["busy"] }
        ]
        const setup = yield* setupDialing({ simulator: { rules } })
        const campaign = yield* createAndStart(setup, csvOf(numbers(5, "+1415556")), {
          retry_config: { max_retries: 2, retry_delay_seconds: 60 }
        })
        // after the first round (ring 1 s, talk 2 s) and 30 s, nobody has been retried yet
        for (let i = 0; i < 10; i++) {
          yield* TestClock.adjust(3000)
          yield* settle()
        }
        expect((yield* attemptsPerContact(campaign.id)).map((c) => c.attempts)).toEqual([1, 1, 1, 1, 1])
        const done = yield* advanceUntil(setup.principal, campaign.id, ["completed"], { stepMillis: 5000 })
        const contacts = yield* attemptsPerContact(campaign.id)
        expect(contacts.map((c) => [c.state, c.attempts, c.last_outcome])).toEqual([
          ["done", 2, "completed"],
          ["done", 2, "completed"],
          ["done", 2, "completed"],
          ["exhausted", 3, "busy"],
          ["exhausted", 1, "failed"]
        ])
        expect(done).toMatchObject({ processed_rows: 5, failed_rows: 2, executed_count: 10, total_queued_count: 10 })

        const noBusyRetry = yield* setupDialing({ simulator: { rules } })
        const second = yield* createAndStart(noBusyRetry, csvOf(numbers(3, "+1415557")), {
          retry_config: { retry_on_busy: false, retry_on_no_answer: false, retry_on_voicemail: false, retry_delay_seconds: 60 }
        })
        yield* advanceUntil(noBusyRetry.principal, second.id, ["completed"], { stepMillis: 5000 })
        expect((yield* attemptsPerContact(second.id)).map((c) => [c.state, c.attempts])).toEqual([
          ["exhausted", 1],
          ["exhausted", 1],
          ["exhausted", 1]
        ])
      }))

    it.effect("the circuit breaker pauses the campaign with a log entry; resume resets its window", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ simulator: { default_outcome: "failed" } })
        const campaign = yield* createAndStart(setup, csvOf(numbers(30, "+1415558")), {
          max_concurrency: 1,
          retry_config: { enabled: false },
          circuit_breaker: { failure_threshold: 0.5, window_seconds: 120, min_calls_in_window: 5 }
        })
        const paused = yield* advanceUntil(setup.principal, campaign.id, ["paused"])
        const trip = paused.logs.at(-1)!
        expect(trip).toMatchObject({ level: "warning", event: "circuit_breaker_tripped" })
        expect(trip.details).toMatchObject({ failure_count: 5, success_count: 0, failure_rate: 1, threshold: 0.5, window_seconds: 120 })
        expect(trip.details?.["recent_failures"]).toHaveLength(5)
        expect(paused.executed_count).toBe(5)
        // nothing more is dialed while paused
        for (let i = 0; i < 10; i++) {
          yield* TestClock.adjust(5000)
          yield* settle()
        }
        expect((yield* (yield* Campaigns).get(setup.principal, campaign.id).pipe(Effect.orDie)).executed_count).toBe(5)
        const resumed = yield* (yield* Campaigns).resume(setup.principal, campaign.id).pipe(Effect.orDie)
        expect(resumed.state).toBe("running")
        const again = yield* advanceUntil(setup.principal, campaign.id, ["paused"])
        expect(again.executed_count).toBe(10)
        expect(again.logs.filter((l) => l.event === "circuit_breaker_tripped")).toHaveLength(2)
        expect(again.circuit_breaker).toEqual({ enabled: true, failure_threshold: 0.5, window_seconds: 120, min_calls_in_window: 5 })
      }))

    it.effect("pause and cancel stop new dials; calls in progress finish and are recorded; resume continues", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ simulator: { ring_seconds: 1, talk_seconds: 10 } })
        const campaigns = yield* Campaigns
        const campaign = yield* createAndStart(setup, csvOf(numbers(8, "+1415559")), { max_concurrency: 2 })
        expect(yield* activeCallsSettled({ campaignId: campaign.id }, 2)).toBe(2)
        const paused = yield* campaigns.pause(setup.principal, campaign.id).pipe(Effect.orDie)
        expect(paused.state).toBe("paused")
        for (let i = 0; i < 30; i++) {
          yield* TestClock.adjust(1000)
          yield* settle()
        }
        const afterPause = yield* campaigns.get(setup.principal, campaign.id).pipe(Effect.orDie)
        expect(afterPause).toMatchObject({ state: "paused", executed_count: 2, processed_rows: 2 })
        expect(yield* activeCalls({ campaignId: campaign.id })).toBe(0)
        const refused = yield* Effect.flip(campaigns.pause(setup.principal, campaign.id))
        expect(refused._tag).toBe("InvalidTransition")
        expect(refused.message).toContain("paused")
        yield* campaigns.resume(setup.principal, campaign.id).pipe(Effect.orDie)
        expect(yield* activeCallsSettled({ campaignId: campaign.id }, 2)).toBe(2)
        const canceled = yield* campaigns.cancel(setup.principal, campaign.id).pipe(Effect.orDie)
        expect(canceled.state).toBe("canceled")
        for (let i = 0; i < 30; i++) {
          yield* TestClock.adjust(1000)
          yield* settle()
        }
        const final = yield* campaigns.get(setup.principal, campaign.id).pipe(Effect.orDie)
        expect(final).toMatchObject({ state: "canceled", executed_count: 4, processed_rows: 4 })
        const resumeCanceled = yield* Effect.flip(campaigns.resume(setup.principal, campaign.id))
        expect(resumeCanceled.message).toContain("canceled")
      }))

    it.effect("concurrency never exceeds the campaign's or the organization's limit (property)", () =>
      Effect.gen(function*() {
        const outcomes = ["completed", "busy", "no_answer", "voicemail", "failed"] as const
        const samples = FastCheck.sample(
          FastCheck.record({
            orgLimit: FastCheck.integer({ min: 1, max: 4 }),
            maxConcurrency: FastCheck.integer({ min: 1, max: 5 }),
            mix: FastCheck.array(FastCheck.constantFrom(...outcomes), { minLength: 6, maxLength: 10 })
          }),
          { numRuns: 3, seed: 7 }
        )
        for (const [index, sample] of samples.entries()) {
          const phones = numbers(sample.mix.length, `+121255${index}`)
          const setup = yield* setupDialing({
            limit: sample.orgLimit,
            simulator: { rules: phones.map((p, i) => ({ match: "exact" as const, pattern: p, outcomes: [sample.mix[i]!] })) }
          })
          // two campaigns of one organization share its limit
          const a = yield* createAndStart(setup, csvOf(phones.slice(0, 5)), { max_concurrency: sample.maxConcurrency, retry_config: { retry_delay_seconds: 5, max_retries: 1 }, circuit_breaker: { enabled: false } })
          const b = yield* createAndStart(setup, csvOf(phones.slice(5)), { max_concurrency: sample.maxConcurrency, retry_config: { retry_delay_seconds: 5, max_retries: 1 }, circuit_breaker: { enabled: false } })
          const campaignLimit = Math.min(sample.maxConcurrency, sample.orgLimit)
          const check = Effect.gen(function*() {
            expect(yield* activeCalls({ organizationId: setup.principal.organizationId })).toBeLessThanOrEqual(sample.orgLimit)
            expect(yield* activeCalls({ campaignId: a.id })).toBeLessThanOrEqual(campaignLimit)
            expect(yield* activeCalls({ campaignId: b.id })).toBeLessThanOrEqual(campaignLimit)
          })
          yield* advanceUntil(setup.principal, a.id, ["completed"], { onStep: check, stepMillis: 1000 })
          yield* advanceUntil(setup.principal, b.id, ["completed"], { onStep: check, stepMillis: 1000 })
        }
      }), 120_000)
  })

  // Days of simulated time: the periodic timers (acquire, sweep, recheck, heartbeat, webhook poll) wake once
  // an hour at most, so each hour the clock jumps runs little besides what the windows cause. A loop with
  // nothing due sleeps until its next window opens, so no dial waits on them.
  const hourly = {
    dispatcher: { leaseSeconds: 36_000, acquireIntervalMillis: 3_600_000, recheckMillis: 3_600_000, sweepIntervalMillis: 3_600_000 },
    webhooks: { pollMillis: 3_600_000 }
  }
  layer(TestServices(dialect, hourly), { timeout: "120 seconds" })(`Dispatcher calling windows [${dialect}]`, (it) => {
    it.effect("outside every slot nothing is dialed and the campaign stays running; each contact's own zone opens its window", () =>
      Effect.gen(function*() {
        // The TestClock starts at 1970-01-01T00:00Z, a Thursday (Wednesday 19:00 in New York). The slot is
        // Friday 09:00–17:00 New York time (14:00Z–22:00Z); a Tokyo contact's Friday 09:00 is Friday 00:00Z.
        // (Jumping the clock to a real date instead would replay decades of periodic timers.)
        const setup = yield* setupDialing({ simulator: { ring_seconds: 1, talk_seconds: 1 } })
        const phones = numbers(2, "+1646558")
        const csv = `phone_number,timezone\n${phones[0]},\n${phones[1]},Asia/Tokyo\n`
        const campaign = yield* createAndStart(setup, csv, {
          schedule_config: { timezone: "America/New_York", slots: [{ day_of_week: 4, start_time: "09:00", end_time: "17:00" }] }
        })
        const campaigns = yield* Campaigns
        const stepTo = (iso: string) =>
          Effect.gen(function*() {
            let now: number
            while ((now = yield* TestClock.currentTimeMillis) < Date.parse(iso)) {
              yield* TestClock.adjust(Math.min(60 * 60 * 1000, Date.parse(iso) - now))
              yield* settle(10)
            }
            // let calls placed by the jump ring and talk to their end
            for (let i = 0; i < 10; i++) {
              yield* TestClock.adjust(1000)
              yield* settle(30)
            }
          })
        const contactsNow = attemptsPerContact(campaign.id)
        // Until Friday 00:00Z (09:00 in Tokyo) nobody is called.
        yield* stepTo("1970-01-01T23:50:00Z")
        expect((yield* contactsNow).map((c) => c.attempts)).toEqual([0, 0])
        expect((yield* campaigns.get(setup.principal, campaign.id).pipe(Effect.orDie)).state).toBe("running")
        // The Tokyo contact's window opens at Friday 09:00 Tokyo; the New York one stays closed.
        yield* stepTo("1970-01-02T00:10:00Z")
        expect((yield* contactsNow).map((c) => [c.attempts, c.state])).toEqual([[0, "queued"], [1, "done"]])
        yield* stepTo("1970-01-02T13:50:00Z")
        expect((yield* contactsNow)[0]!.attempts).toBe(0)
        // Friday 09:00 in New York (14:00Z): dialed at once, and the campaign completes.
        yield* stepTo("1970-01-02T14:00:00Z")
        const done = yield* advanceUntil(setup.principal, campaign.id, ["completed"], { stepMillis: 1000 })
        expect((yield* contactsNow).map((c) => c.state)).toEqual(["done", "done"])
        expect(Date.parse(done.completed_at!)).toBeGreaterThanOrEqual(Date.parse("1970-01-02T14:00:00Z"))
        expect(Date.parse(done.completed_at!)).toBeLessThan(Date.parse("1970-01-02T14:05:00Z"))
      }), 90_000)
  })
}
