/**
 * A read while the database's connections are being dropped is tried once more on another connection,
 * instead of answering 500 (issue 23; before, 3 to 6 of these 192 reads answered 500). The pool's connections are terminated from the database side,
 * as a failover or an administrator does, and the reads that follow at once still answer 200.
 */
import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, TestServices } from "effect"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

describe.skipIf(!dialects.includes("pg"))("reads and dropped connections [pg]", () => {
  layer(TestApp("pg"), { timeout: "120 seconds" })("reads", (it) => {
    it.effect("GETs in flight while every connection of the pool is terminated answer 200", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const sql = yield* SqlClient.SqlClient
        const statuses: Array<number> = []
        for (let round = 0; round < 8; round++) {
          const read = call("GET", "/api/v1/campaign/", { apiKey: org.apiKey }).pipe(
            Effect.timeoutTo({ duration: "5 seconds", onTimeout: () => ({ status: 0, body: "no answer" }), onSuccess: (reply) => reply })
          )
          const reads = yield* Effect.fork(Effect.all(Array.from({ length: 24 }, () => read), { concurrency: 24 }))
          yield* Effect.sleep(`${2 + round * 3} millis`)
          // Terminated from the database side, as a failover or an administrator does (one kill per round).
          yield* sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()`.pipe(Effect.orDie)
          statuses.push(...(yield* Fiber.join(reads)).map((r) => r.status))
        }
        // PostgreSQL's own limit is shared with everything else on the server: when it is nearly used up
        // (other processes' pools), no retry can open a connection, so a failure says how full it was.
        const [use] = yield* sql<{ readonly open: number; readonly max: number }>`SELECT
          (SELECT count(*)::int FROM pg_stat_activity) AS open, current_setting('max_connections')::int AS max`.pipe(Effect.orDie)
        expect(statuses.filter((s) => s !== 200), `connections open on the server after the test: ${use?.open} of ${use?.max}`).toEqual([])
      }).pipe(TestServices.provideLive))
  })
})
