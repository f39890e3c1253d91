/**
 * `npm run bench`: the dispatcher with the simulator, on SQLite and PostgreSQL, written to
 * bench/results.md. A benchmark, not a test: numbers depend on the machine.
 *
 *   BENCH_CONTACTS (default 100000)   contacts of the zero-latency run
 *   BENCH_REALISTIC (default 1000)    contacts of the realistic run (1 s ringing, 3 s talking)
 *   BENCH_PG_URL (default the local server) PostgreSQL admin URL; "off" skips PostgreSQL
 */
import { Campaigns } from "@agentline/core/campaigns/Campaigns"
import { Dispatcher } from "@agentline/core/dispatcher/Dispatcher"
import { Organizations } from "@agentline/core/organizations/Organizations"
import { acting } from "@agentline/core/organizations/Principal"
import { TelephonyConfigs } from "@agentline/core/telephony/TelephonyConfigs"
import { Uploads } from "@agentline/core/uploads/Uploads"
import { Users } from "@agentline/core/users/Users"
import { Workflows } from "@agentline/core/workflows/Workflows"
import { Database, Testing } from "@agentline/sql"
import * as Server from "@agentline/http/Server"
import { ServerConfig } from "@agentline/http/ServerConfig"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000)
const REALISTIC = Number(process.env.BENCH_REALISTIC ?? 1_000)
const LIMIT = 100

interface Result {
  readonly dialect: string
  readonly scenario: string
  readonly contacts: number
  readonly importSeconds: number
  readonly attemptsPerSecond: number
  readonly refillP50: number
  readonly refillP99: number
  readonly utilization: number
  readonly peak: number
  readonly completionLagMs: number
  readonly peakRssMb: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const run = (dialect: string, scenario: string, contacts: number, ring: number, talk: number) =>
  Effect.gen(function*() {
    const admin = yield* (yield* Users).create({
      email: `bench@${scenario}-${contacts}.local`, password: "bench-password", role: "admin", organization: { name: `bench-${scenario}-${contacts}` }, mustChangePassword: false
    })
    const principal = acting(admin)
    yield* (yield* Organizations).setConcurrentCallLimit(principal.organizationId, LIMIT)
    yield* (yield* TelephonyConfigs).create(principal, {
      name: "bench", is_default_outbound: true, config: { provider: "simulator", ring_seconds: ring, talk_seconds: talk }
    })
    const agent = yield* (yield* Workflows).create(principal, {
      name: "bench",
      workflow_definition: {
        nodes: [
          { id: "s", type: "startCall", position: { x: 0, y: 0 }, data: { name: "s", prompt: "hi" } },
          { id: "e", type: "endCall", position: { x: 0, y: 1 }, data: { name: "e", prompt: "bye" } }
        ],
        edges: [{ id: "x", source: "s", target: "e", data: { label: "end", condition: "done" } }]
      }
    })
    const lines = ["phone_number"]
    const areas = [212, 213, 310, 312, 404, 415, 512, 617, 646, 702, 206, 303]
    for (let i = 0; i < contacts; i++) lines.push(`+1${areas[Math.floor(i / 10000) % areas.length]}555${String(i % 10000).padStart(4, "0")}`)
    const fileKey = yield* (yield* Uploads).store(principal, "bench.csv", new TextEncoder().encode(lines.join("\n") + "\n"))
    const campaigns = yield* Campaigns
    const importStart = Date.now()
    const campaign = yield* campaigns.create(principal, {
      name: "bench", workflow_id: agent.id, source_type: "csv", source_id: fileKey, max_concurrency: LIMIT,
      retry_config: { enabled: false }, circuit_breaker: { enabled: false }
    } as any)
    const importSeconds = (Date.now() - importStart) / 1000
    const dispatcher = yield* Dispatcher
    const sql = yield* SqlClient.SqlClient
    let samples = 0
    let sum = 0
    let peak = 0
    let peakRss = 0
    yield* campaigns.start(principal, campaign.id)
    while (true) {
      const inProgress = yield* dispatcher.inProgress
      const [queued] = yield* sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM contacts WHERE campaign_id = ${campaign.id} AND state = 'queued'`
      if (Number(queued!.n) > 0) {
        samples++
        sum += inProgress
      }
      peak = Math.max(peak, inProgress)
      peakRss = Math.max(peakRss, process.memoryUsage().rss)
      const [row] = yield* sql`SELECT state FROM campaigns WHERE id = ${campaign.id}`
      if (row!.state === "completed") break
      yield* Effect.sleep("20 millis")
    }
    const attempts = yield* sql<{ created_at: unknown; ended_at: unknown }>`
      SELECT created_at, ended_at FROM call_attempts WHERE campaign_id = ${campaign.id}`
    const starts = attempts.map((a) => Date.parse(String(a.created_at instanceof Date ? a.created_at.toISOString() : a.created_at))).sort((a, b) => a - b)
    const ends = attempts.map((a) => Date.parse(String(a.ended_at instanceof Date ? a.ended_at.toISOString() : a.ended_at))).sort((a, b) => a - b)
    const [done] = yield* sql`SELECT completed_at FROM campaigns WHERE id = ${campaign.id}`
    const completedAt = Date.parse(String(done!.completed_at instanceof Date ? (done!.completed_at as Date).toISOString() : done!.completed_at))
    // With the limit saturated, the (k + limit)-th claim follows the k-th call end.
    const refills = ends.slice(0, Math.max(0, starts.length - LIMIT)).map((end, k) => Math.max(0, starts[k + LIMIT]! - end)).sort((a, b) => a - b)
    const elapsed = (ends.at(-1)! - starts[0]!) / 1000
    return {
      dialect,
      scenario,
      contacts,
      importSeconds,
      attemptsPerSecond: attempts.length / elapsed,
      refillP50: percentile(refills, 50),
      refillP99: percentile(refills, 99),
      utilization: samples === 0 ? NaN : sum / samples / LIMIT,
      peak: Math.max(peak, yield* dispatcher.peakInProgress),
      completionLagMs: completedAt - ends.at(-1)!,
      peakRssMb: peakRss / 1024 / 1024
    } satisfies Result
  })

const appFor = (database: Layer.Layer<SqlClient.SqlClient>, dataDir: string) =>
  Server.ServicesLive.pipe(
    Layer.provide(Server.MigrationsLive),
    Layer.provideMerge(database),
    Layer.provideMerge(ServerConfig.layer({
      port: 0, host: "127.0.0.1", dataDir, publicUrl: "http://127.0.0.1", version: "bench",
      secretKey: Redacted.make("bench-secret"), publicLinkTtlSeconds: 3600,
      maxUploadBytes: 1024 * 1024 * 1024, uploadUrlTtlSeconds: 900
    }))
  )

const main = Effect.gen(function*() {
  const results: Array<Result> = []
  const dialects = (process.env.BENCH_DATABASES ?? (process.env.BENCH_PG_URL === "off" ? "sqlite" : "sqlite,pg"))
    .split(",").filter((d): d is "sqlite" | "pg" => d === "sqlite" || d === "pg")
  for (const dialect of dialects) {
    for (const [scenario, contacts, ring, talk] of [
      ["zero latency", CONTACTS, 0, 0],
      ["zero latency (small, for RSS)", Math.max(1000, Math.floor(CONTACTS / 10)), 0, 0],
      ["realistic (1 s ring, 3 s talk)", REALISTIC, 1, 3]
    ] as const) {
      const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-bench-"))
      const database = dialect === "pg"
        ? Layer.unwrapScoped(Effect.map(Testing.freshPgDatabase, ({ url }) => Database.layerPg({ url: Redacted.make(url), maxConnections: 10 }))).pipe(Layer.orDie)
        : Database.layerSqlite({ filename: NodePath.join(dataDir, "bench.db") }).pipe(Layer.orDie)
      console.error(`[bench] ${dialect}: ${scenario}, ${contacts} contacts…`)
      const result = yield* run(dialect, scenario, contacts, ring, talk).pipe(Effect.provide(appFor(database, dataDir)), Effect.scoped)
      console.error(`[bench]   ${result.attemptsPerSecond.toFixed(0)} attempts/s, refill p99 ${result.refillP99} ms, peak ${result.peak}`)
      results.push(result)
      NodeFs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
  const row = (r: Result) =>
    `| ${r.dialect} | ${r.scenario} | ${r.contacts} | ${r.importSeconds.toFixed(1)} s | ${r.attemptsPerSecond.toFixed(0)} | ${r.refillP50} ms / ${r.refillP99} ms | ${(r.utilization * 100).toFixed(1)} % | ${r.peak} | ${r.completionLagMs} ms | ${r.peakRssMb.toFixed(0)} MB |`
  const markdown = [
    "# Dispatcher benchmark",
    "",
    `Run ${new Date().toISOString()} on ${NodeOs.cpus().length} × ${NodeOs.cpus()[0]?.model ?? "cpu"}, ${(NodeOs.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}.`,
    `Simulator provider, \`max_concurrency\` ${LIMIT} (organization limit ${LIMIT}), retries and breaker off. Produced by \`npm run bench\`.`,
    "",
    "| database | scenario | contacts | CSV import | attempts/s | refill latency p50 / p99 | utilization | peak in progress | completion lag | peak RSS |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...results.map(row),
    "",
    "- **attempts/s**: call attempts placed per second, first claim to last call end.",
    "- **refill latency**: a call's end to the next claim (the (k + limit)-th claim after the k-th end), from the database timestamps (ms resolution).",
    "- **utilization**: mean calls in progress / limit while contacts remained queued (sampled every 20 ms).",
    "- **peak in progress**: the most calls this process had in progress at once; it must equal the limit, never exceed it.",
    "- **completion lag**: the last call's end → the campaign's `completed_at`.",
    "- **peak RSS**: the process's resident memory during the run; compare the large and small runs for flatness in the number of contacts.",
    "",
    "Targets (2-core machine): ≥ 1,000 attempts/s on SQLite, refill p99 < 50 ms, utilization ≥ 99 %, completion lag < 1 s, RSS flat in contacts."
  ].join("\n")
  NodeFs.writeFileSync(new URL("./results.md", import.meta.url), markdown + "\n")
  console.log(markdown)
})

Effect.runPromise(main).catch((e) => {
  console.error(e)
  process.exit(1)
})
