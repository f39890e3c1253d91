/**
 * The fault scenarios' shared steps: real server processes on a fresh database of either dialect
 * (PostgreSQL, or the SQLite file in the data directory), a campaign through the public API, and the
 * one verdict every scenario must reach: every contact final, none dialed twice, the counters agreeing
 * with the contacts, and the campaign `completed`.
 */
import { Database, Testing } from "@agentline/sql"
import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as NodePath from "node:path"
import { api, bootstrap, prepareCampaign, type ServerProcess, startServer, tempDir } from "../Processes.js"

export interface Target {
  readonly dialect: Database.Dialect
  /** undefined: SQLite in `dataDir`. */
  readonly databaseUrl: string | undefined
  readonly dataDir: string
}

/** A fresh database of the dialect (dropped with the scope) and a data directory. */
export const freshTarget = (dialect: Database.Dialect) =>
  Effect.gen(function*() {
    const dataDir = tempDir()
    const databaseUrl = dialect === "pg" ? (yield* Testing.freshPgDatabase).url : undefined
    return { dialect, databaseUrl, dataDir } satisfies Target
  })

/** A query from the test process, on its own short-lived connection. */
export const query = <A>(target: Target, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(
      (target.databaseUrl !== undefined
        ? Database.layerPg({ url: Redacted.make(target.databaseUrl), maxConnections: 1 })
        : Database.layerSqlite({ filename: NodePath.join(target.dataDir, "agentline.db") })).pipe(Layer.orDie)
    ),
    Effect.orDie
  ) as Effect.Effect<A>

export const start = (target: Target, env: Record<string, string> = {}) =>
  Effect.promise(() => startServer(target.databaseUrl, target.dataDir, { AGENTLINE_DISPATCHER_LEASE_SECONDS: "2", ...env }))

export const waitFor = (what: string, check: () => Promise<boolean>, timeoutMillis = 120_000) =>
  Effect.promise(async () => {
    const deadline = Date.now() + timeoutMillis
    while (Date.now() < deadline) {
      if (await check().catch(() => false)) return
      await new Promise((r) => setTimeout(r, 250))
    }
    throw new Error(`timed out waiting for ${what}`)
  })

/** An organization, a simulator configuration, an agent and a started campaign (retries off). */
export const startCampaign = (
  target: Target,
  server: ServerProcess,
  options: Parameters<typeof prepareCampaign>[2] & { readonly maxConcurrency: number }
) =>
  Effect.promise(async () => {
    const key = await bootstrap(target.databaseUrl, target.dataDir, `faults${Math.random().toString(36).slice(2, 8)}`)
    const { agentId, fileKey } = await prepareCampaign(server.url, key, options)
    const campaign = await api(server.url, key, "POST", "/api/v1/campaign/create", {
      name: "faults",
      workflow_id: agentId,
      source_type: "csv",
      source_id: fileKey,
      max_concurrency: options.maxConcurrency,
      retry_config: { enabled: false }
    })
    await api(server.url, key, "POST", `/api/v1/campaign/${campaign.id}/start`)
    return { key, campaignId: campaign.id as number }
  })

export const campaignOf = (server: ServerProcess, key: string, campaignId: number) =>
  api(server.url, key, "GET", `/api/v1/campaign/${campaignId}`)

/** The verdict: completed, every contact final, none dialed twice, counters consistent, nothing open. */
export const expectSettled = (target: Target, campaignId: number, contacts: number) =>
  Effect.gen(function*() {
    const [campaign] = yield* query(target, (sql) =>
      sql<Record<string, unknown>>`SELECT state, total_rows, processed_rows, failed_rows, executed_count, total_queued_count
                                   FROM campaigns WHERE id = ${campaignId}`)
    const byState = yield* query(target, (sql) =>
      sql<{ state: string; n: number }>`SELECT state, CAST(COUNT(*) AS INTEGER) AS n FROM contacts WHERE campaign_id = ${campaignId} GROUP BY state`)
    const count = (state: string) => Number(byState.find((r) => r.state === state)?.n ?? 0)
    const dialedTwice = yield* query(target, (sql) =>
      sql`SELECT contact_id FROM call_attempts WHERE campaign_id = ${campaignId} GROUP BY contact_id HAVING COUNT(*) > 1`)
    const [attempts] = yield* query(target, (sql) =>
      sql<{ n: number; open: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS n,
                                         CAST(SUM(CASE WHEN state IN ('claimed', 'dialing') THEN 1 ELSE 0 END) AS INTEGER) AS open
                                       FROM call_attempts WHERE campaign_id = ${campaignId}`)
    const [overdrawn] = yield* query(target, (sql) =>
      sql<{ n: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM contacts WHERE campaign_id = ${campaignId} AND attempts <> 1`)
    const final = count("done") + count("exhausted") + count("interrupted")
    const counters = Object.fromEntries(Object.entries(campaign!).map(([k, v]) => [k, k === "state" ? v : Number(v)]))
    expect({
      counters,
      final,
      queuedOrDialing: count("queued") + count("dialing"),
      dialedTwice: dialedTwice.length,
      contactsNotCalledOnce: Number(overdrawn!.n),
      openAttempts: Number(attempts!.open ?? 0)
    }).toEqual({
      counters: {
        state: "completed",
        total_rows: contacts,
        processed_rows: contacts,
        failed_rows: count("exhausted") + count("interrupted"),
        executed_count: Number(attempts!.n),
        total_queued_count: contacts
      },
      final: contacts,
      queuedOrDialing: 0,
      dialedTwice: 0,
      contactsNotCalledOnce: 0,
      openAttempts: 0
    })
    return { done: count("done"), interrupted: count("interrupted"), exhausted: count("exhausted") }
  })

export const dialects = Testing.dialects
