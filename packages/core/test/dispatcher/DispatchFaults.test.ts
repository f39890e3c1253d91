/**
 * Faults the dispatcher must survive inside one process (the quick ones; the process-level scenarios
 * are in `http/test/faults/`, run by `npm run test:faults`): every contact ends final, none is dialed
 * twice, the counters agree with the contacts, and the campaign completes.
 */
import type { CreateCampaignRequest } from "@agentline/api/campaigns/Campaign"
import { Simulator } from "@agentline/telephony-simulator"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import type { TelephonyProvider } from "../../src/telephony/TelephonyProvider.js"
import { TelephonyConfigs } from "../../src/telephony/TelephonyConfigs.js"
import { Workflows } from "../../src/workflows/Workflows.js"
import {
  activeCallsSettled,
  advanceUntil,
  attemptsPerContact,
  Campaigns,
  csvOf,
  numbers,
  plainDefinition,
  settle,
  setupDialing,
  uploadCsv
} from "../DispatchHarness.js"
import { dialects, TestServices } from "../Harness.js"

/**
 * The simulator, except that the end of each call never reaches the dispatcher: what a final write
 * lost with the database connection looks like. The provider still knows how each call ended (`getCall`).
 */
const lossy = (simulator: TelephonyProvider): TelephonyProvider => ({
  ...simulator,
  name: "lossy",
  displayName: "Simulator losing call ends",
  calls: {
    ...simulator.calls!,
    place: (input) => simulator.calls!.place({ ...input, onEvent: (event) => (event.type === "ended" ? Effect.void : input.onEvent(event)) })
  }
})

const WithLossyProvider = (dialect: (typeof dialects)[number]) =>
  Layer.unwrapScoped(Effect.map(Simulator.make, (simulator) => TestServices(dialect, { providers: [lossy(simulator)] })))

const startCampaign = (setup: Effect.Effect.Success<ReturnType<typeof setupDialing>>, phones: ReadonlyArray<string>, body: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const campaigns = yield* Campaigns
    const sourceId = yield* uploadCsv(setup.principal, csvOf(phones))
    const created = yield* campaigns.create(setup.principal, {
      name: "faults",
      workflow_id: setup.agent.id,
      source_type: "csv",
      source_id: sourceId,
      ...body
    } as CreateCampaignRequest)
    return yield* campaigns.start(setup.principal, created.id)
  }).pipe(Effect.orDie)

for (const dialect of dialects) {
  layer(TestServices(dialect), { timeout: "120 seconds" })(`Dispatcher faults [${dialect}]`, (it) => {
    it.effect("fractional durations (talk_seconds 0.3) are stored exactly and the campaign completes (defect 9.2 / 16.3)", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ limit: 3, simulator: { ring_seconds: 0.2, talk_seconds: 0.3 } })
        const phones = numbers(6, "+1415777")
        const campaign = yield* startCampaign(setup, phones, { max_concurrency: 3 })
        const done = yield* advanceUntil(setup.principal, campaign.id, ["completed"], { stepMillis: 100, maxSteps: 400 })
        expect(done).toMatchObject({ processed_rows: 6, failed_rows: 0, executed_count: 6 })
        const contacts = yield* attemptsPerContact(campaign.id)
        expect(contacts.map((c) => [c.state, c.attempts])).toEqual(phones.map(() => ["done", 1]))
        const sql = yield* SqlClient.SqlClient
        const stored = yield* sql<{ duration_ms: number }>`SELECT duration_ms FROM call_attempts WHERE campaign_id = ${campaign.id}`.pipe(Effect.orDie)
        expect(stored.map((a) => Number(a.duration_ms))).toEqual(phones.map(() => 300))
        const runs = (yield* (yield* Campaigns).runs(setup.principal, campaign.id, 1, 100).pipe(Effect.orDie)).runs
        expect(runs.map((r) => r.usage_info?.call_duration_seconds)).toEqual(phones.map(() => 0.3))
        expect(runs.map((r) => r.cost_info?.call_duration_seconds)).toEqual(phones.map(() => 0))
      }))
  })

  layer(WithLossyProvider(dialect), { timeout: "120 seconds" })(`Dispatcher sweeper [${dialect}]`, (it) => {
    it.effect("an attempt past its agent's longest call (+ margin) is settled with the provider and its campaign completes", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ limit: 4 })
        const configuration = yield* (yield* TelephonyConfigs).create(setup.principal, {
          name: "lossy",
          config: { provider: "lossy", ring_seconds: 1, talk_seconds: 2.5 },
          is_default_outbound: false
        }).pipe(Effect.orDie)
        const agent = yield* (yield* Workflows).create(setup.principal, {
          name: "Short calls",
          workflow_definition: plainDefinition(),
          workflow_configurations: { max_call_duration: 10 }
        }).pipe(Effect.orDie)
        const campaigns = yield* Campaigns
        const sourceId = yield* uploadCsv(setup.principal, csvOf(numbers(4, "+1415778")))
        const created = yield* campaigns.create(setup.principal, {
          name: "lost ends",
          workflow_id: agent.id,
          source_type: "csv",
          source_id: sourceId,
          telephony_configuration_id: configuration.id,
          max_concurrency: 4
        } as CreateCampaignRequest).pipe(Effect.orDie)
        yield* campaigns.start(setup.principal, created.id).pipe(Effect.orDie)
        // The calls ended after 3.5 s, but nobody told the dispatcher: before the deadline (10 s + the
        // 60 s margin) they still count as in progress.
        for (let i = 0; i < 6; i++) {
          yield* TestClock.adjust(5000)
          yield* settle()
        }
        expect(yield* activeCallsSettled({ campaignId: created.id }, 4)).toBe(4)
        // Sweeps run every 60 s of TestClock time; each step leaves real time for their database work.
        const done = yield* advanceUntil(setup.principal, created.id, ["completed"], { stepMillis: 5000, maxSteps: 200 })
        expect(done).toMatchObject({ processed_rows: 4, failed_rows: 0, executed_count: 4 })
        expect((yield* attemptsPerContact(created.id)).map((c) => [c.state, c.attempts])).toEqual([["done", 1], ["done", 1], ["done", 1], ["done", 1]])
        const runs = (yield* campaigns.runs(setup.principal, created.id, 1, 100).pipe(Effect.orDie)).runs
        expect(runs.map((r) => [r.is_completed, r.gathered_context?.outcome, r.usage_info?.call_duration_seconds])).toEqual(
          [0, 1, 2, 3].map(() => [true, "completed", 2.5])
        )
      }))
  })
}
