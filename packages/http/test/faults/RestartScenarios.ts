/**
 * Process restarts mid-campaign (issue 16.1 and the crash case): a graceful SIGTERM with a new process
 * started at once, and a kill -9. Declared per database by `Restarts.sqlite.faults.ts` and
 * `Restarts.pg.faults.ts`: two files, so that the fault run's two workers take one database each.
 */
import { describe, it } from "@effect/vitest"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { campaignOf, dialects, expectSettled, freshTarget, start, startCampaign, waitFor } from "./FaultHarness.js"

export const restartScenarios = (dialect: "sqlite" | "pg") =>
  describe.skipIf(!dialects.includes(dialect))(`restarts [${dialect}]`, () => {
    it.live("SIGTERM mid-campaign (300 contacts, concurrency 20), restarted at once: completes, nobody dialed twice", () =>
      Effect.gen(function*() {
        const target = yield* freshTarget(dialect)
        const first = yield* start(target)
        const contacts = 300
        const { campaignId, key } = yield* startCampaign(target, first, {
          contacts,
          prefix: "+1415556",
          ringSeconds: 1,
          talkSeconds: 2,
          limit: 20,
          maxConcurrency: 20
        })
        yield* waitFor("a third of the calls", async () => (await campaignOf(first, key, campaignId)).executed_count >= 100)
        // PostgreSQL: the new process starts while the old one drains. SQLite is a single-process store:
        // the new one starts once the old one is gone.
        const stopped = Effect.promise(() => first.stop())
        const second = dialect === "pg"
          ? (yield* Effect.all([stopped, start(target)], { concurrency: 2 }))[1]
          : yield* Effect.zipRight(stopped, start(target))
        expect(first.child.exitCode).toBe(0)
        try {
          yield* waitFor("completion after the restart", async () => (await campaignOf(second, key, campaignId)).state === "completed")
          // the stopped process let its calls end (they are recorded, not interrupted) and gave up the rest
          const outcome = yield* expectSettled(target, campaignId, contacts)
          expect(outcome.done).toBeGreaterThan(contacts - 20)
        } finally {
          yield* Effect.promise(() => second.kill())
        }
      }).pipe(Effect.scoped), 300_000)

    it.live("SIGTERM while every call in progress outlasts the lease: a new process leaves them to the draining one", () =>
      Effect.gen(function*() {
        const target = yield* freshTarget(dialect)
        const first = yield* start(target)
        const contacts = 40
        const { campaignId, key } = yield* startCampaign(target, first, {
          contacts,
          prefix: "+1415558",
          ringSeconds: 1,
          talkSeconds: 5,
          limit: 20,
          maxConcurrency: 20
        })
        yield* waitFor("the first calls", async () => (await campaignOf(first, key, campaignId)).executed_count >= 20)
        // The drain (up to 5 s of talk) outlasts the 2 s lease: the stopping node must stay alive meanwhile.
        const stopped = Effect.promise(() => first.stop())
        const second = dialect === "pg"
          ? (yield* Effect.all([stopped, start(target)], { concurrency: 2 }))[1]
          : yield* Effect.zipRight(stopped, start(target))
        try {
          yield* waitFor("completion after the restart", async () => (await campaignOf(second, key, campaignId)).state === "completed")
          const outcome = yield* expectSettled(target, campaignId, contacts)
          expect(outcome).toEqual({ done: contacts, interrupted: 0, exhausted: 0 })
        } finally {
          yield* Effect.promise(() => second.kill())
        }
      }).pipe(Effect.scoped), 300_000)

    it.live("kill -9 mid-campaign: after a restart every contact ends final and none is dialed twice", () =>
      Effect.gen(function*() {
        const target = yield* freshTarget(dialect)
        const first = yield* start(target)
        const contacts = 60
        const { campaignId, key } = yield* startCampaign(target, first, {
          contacts,
          prefix: "+1415557",
          ringSeconds: 1,
          talkSeconds: 2,
          limit: 10,
          maxConcurrency: 10
        })
        yield* waitFor("some calls", async () => (await campaignOf(first, key, campaignId)).executed_count >= 20)
        yield* Effect.promise(() => first.kill())
        const second = yield* start(target)
        try {
          yield* waitFor("completion after the restart", async () => (await campaignOf(second, key, campaignId)).state === "completed")
          const outcome = yield* expectSettled(target, campaignId, contacts)
          // the calls the killed process had in progress could not be learned: recorded, never re-dialed
          expect(outcome.interrupted).toBeGreaterThan(0)
        } finally {
          yield* Effect.promise(() => second.kill())
        }
      }).pipe(Effect.scoped), 300_000)
  })
