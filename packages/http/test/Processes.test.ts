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
  it.live("a process killed mid-campaign: after a restart every contact ends final and none is dialed twice", () =>
    Effect.gen(function*() {
      const db = yield* Testing.freshPgDatabase
      const dataDir = tempDir()
      const key = yield* Effect.promise(() => bootstrap(db.url, dataDir, "crash"))
      const first = yield* Effect.promise(() => startServer(db.url, dataDir))
      const { agentId, fileKey } = yield* Effect.promise(() =>
        prepareCampaign(first.url, key, { contacts: 40, prefix: "+1415555", ringSeconds: 1, talkSeconds: 2, limit: 5 })
      )
      const campaign = yield* Effect.promise(() =>
        api(first.url, key, "POST", "/api/v1/campaign/create", {
          name: "crash", workflow_id: agentId, source_type: "csv", source_id: fileKey, max_concurrency: 5, retry_config: { enabled: false }
        })
      )
      yield* Effect.promise(() => api(first.url, key, "POST", `/api/v1/campaign/${campaign.id}/start`))
      yield* Effect.promise(() =>
        waitFor("some calls", async () => (await api(first.url, key, "GET", `/api/v1/campaign/${campaign.id}`)).executed_count >= 10)
      )
      yield* Effect.promise(() => first.kill())

      const second = yield* Effect.promise(() => startServer(db.url, dataDir))
      try {
        yield* Effect.promise(() =>
          waitFor("completion after restart", async () =>
            (await api(second.url, key, "GET", `/api/v1/campaign/${campaign.id}`)).state === "completed")
        )
      } finally {
        yield* Effect.promise(() => second.kill())
      }
      const contacts = yield* Effect.promise(() =>
        query(db.url, (sql) => sql<{ state: string; attempts: number }>`SELECT state, attempts FROM contacts WHERE campaign_id = ${campaign.id}`)
      )
      expect(contacts).toHaveLength(40)
      expect(contacts.every((c) => ["done", "exhausted", "interrupted"].includes(c.state))).toBe(true)
      expect(contacts.every((c) => Number(c.attempts) === 1)).toBe(true)
      const dialedTwice = yield* Effect.promise(() =>
        query(db.url, (sql) => sql`SELECT contact_id FROM call_attempts WHERE campaign_id = ${campaign.id} AND state <> 'claimed'
                                   GROUP BY contact_id HAVING COUNT(*) > 1`)
      )
      expect(dialedTwice).toEqual([])
      // the calls the killed process had in progress could not be learned: recorded, never re-dialed
      expect(contacts.filter((c) => c.state === "interrupted").length).toBeGreaterThan(0)
    }).pipe(Effect.scoped), 180_000)

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
            prepareCampaign(server.url, key, { contacts: 30, prefix: i === 0 ? "+1415555" : "+1415556", ringSeconds: 0, talkSeconds: 1, limit })
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
