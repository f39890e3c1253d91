import { Testing } from "@agentline/sql"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { Database } from "@agentline/sql"
import { api, bootstrap, prepareCampaign, startServer, tempDir } from "./Processes.js"

const pg = Testing.dialects.includes("pg")

const query = <A>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, f).pipe(
      Effect.provide(Database.layerPg({ url: Redacted.make(url), maxConnections: 1 }).pipe(Layer.orDie)),
      Effect.orDie
    ) as Effect.Effect<A>
  )

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMillis = 90_000) => {
  const deadline = Date.now() + timeoutMillis
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe.skipIf(!pg)("server processes on one PostgreSQL", () => {
  // A process killed mid-campaign and restarted is the fault run's scenario (`faults/RestartScenarios.ts`,
  // "kill -9 mid-campaign", on both databases; `.ci/run` runs it after `npm test`).
  it.live("two processes share the work and never exceed the organization's limit together", () =>
    Effect.gen(function*() {
      const db = yield* Testing.freshPgDatabase
      const dataDir = tempDir()
      const key = yield* Effect.promise(() => bootstrap(db.url, dataDir, "pair"))
      const a = yield* Effect.promise(() => startServer(db.url, dataDir))
      const b = yield* Effect.promise(() => startServer(db.url, dataDir))
      try {
        const limit = 4
        const ids: Array<number> = []
        for (const [i, server] of [a, b].entries()) {
          const { agentId, fileKey } = yield* Effect.promise(() =>
            prepareCampaign(server.url, key, { contacts: 16, prefix: i === 0 ? "+1415555" : "+1415556", ringSeconds: 0, talkSeconds: 1, limit })
          )
          const campaign = yield* Effect.promise(() =>
            api(server.url, key, "POST", "/api/v1/campaign/create", {
              name: `pair-${i}`, workflow_id: agentId, source_type: "csv", source_id: fileKey, max_concurrency: limit
            })
          )
          ids.push(campaign.id)
        }
        for (const [i, server] of [a, b].entries()) {
          yield* Effect.promise(() => api(server.url, key, "POST", `/api/v1/campaign/${ids[i]}/start`))
        }
        let peak = 0
        const owners = new Set<string>()
        yield* Effect.promise(() =>
          waitFor("both campaigns completed", async () => {
            const [row] = await query(db.url, (sql) =>
              sql<{ n: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM call_attempts WHERE state IN ('claimed', 'dialing')`)
            peak = Math.max(peak, Number(row!.n))
            const nodes = await query(db.url, (sql) => sql<{ node_id: string }>`SELECT DISTINCT node_id FROM call_attempts`)
            for (const n of nodes) owners.add(n.node_id)
            const states = await Promise.all(ids.map(async (id) => (await api(a.url, key, "GET", `/api/v1/campaign/${id}`)).state))
            return states.every((s) => s === "completed")
          })
        )
        expect(peak).toBeLessThanOrEqual(limit)
        expect(peak).toBeGreaterThan(0)
        expect(owners.size).toBe(2)
        const twice = yield* Effect.promise(() =>
          query(db.url, (sql) => sql`SELECT contact_id FROM call_attempts GROUP BY contact_id HAVING COUNT(*) > 1`)
        )
        expect(twice).toEqual([])
      } finally {
        yield* Effect.promise(() => a.kill())
        yield* Effect.promise(() => b.kill())
      }
    }).pipe(Effect.scoped), 180_000)
})
