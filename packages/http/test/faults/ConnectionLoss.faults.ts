/**
 * Dropped database connections in a live process (issue 16.2): the server's PostgreSQL connections are
 * terminated 15 times, once a second, in the middle of a campaign. Writes are retried, the process
 * sweeps its own stuck attempts, and slots of attempts that never dialed come back. (SQLite has no
 * connection to drop: its file is opened in the process.)
 */
import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { campaignOf, dialects, expectSettled, freshTarget, query, start, startCampaign, waitFor } from "./FaultHarness.js"

describe.skipIf(!dialects.includes("pg"))("connection loss [pg]", () => {
  it.live("15 connection kills, one a second, mid-campaign: completes, nobody dialed twice, nothing left open", () =>
    Effect.gen(function*() {
      const target = yield* freshTarget("pg")
      // A short margin so that what the kills strand is swept within the test (an agent's longest call
      // of 10 s + 5 s), as a production margin would in minutes.
      const server = yield* start(target, { AGENTLINE_DISPATCHER_RECONCILE_MARGIN_SECONDS: "5" })
      try {
        const contacts = 150
        const { campaignId, key } = yield* startCampaign(target, server, {
          contacts,
          prefix: "+1415558",
          ringSeconds: 0.5,
          talkSeconds: 1,
          limit: 10,
          maxConcurrency: 10,
          maxCallSeconds: 10
        })
        yield* waitFor("the first calls", async () => (await campaignOf(server, key, campaignId)).executed_count >= 10)
        const database = new URL(target.databaseUrl!).pathname.slice(1)
        for (let kill = 0; kill < 15; kill++) {
          yield* query(target, (sql) =>
            sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${database} AND pid <> pg_backend_pid()`)
          yield* Effect.sleep("1 second")
        }
        yield* waitFor("completion", async () => (await campaignOf(server, key, campaignId)).state === "completed", 180_000)
        yield* expectSettled(target, campaignId, contacts)
      } finally {
        yield* Effect.promise(() => server.kill())
      }
    }).pipe(Effect.scoped), 300_000)
})
