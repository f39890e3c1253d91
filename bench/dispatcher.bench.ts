/**
 * `npm run bench`: the dispatcher with the simulator, on SQLite and PostgreSQL, written to
 * bench/results.md with every target of issue 13 marked met or not met. A benchmark, not a test:
 * numbers depend on the machine; run it on a quiet one.
 *
 * In-process runs (the dispatcher in this process, so its own counters can be sampled):
 * - one campaign at `max_concurrency` 100 (organization limit 100), zero latency;
 * - ten campaigns × 100 under an organization limit of 1,000, zero latency;
 * - ten campaigns × 100 with realistic calls (1 s ringing, 3 s talking): 1,000 calls in progress;
 * - one campaign with a tenth of the contacts (memory flat in the number of contacts?).
 * Server runs (`agentline serve`, the compiled server, driven through its API as an operator would):
 * - SQLite, one campaign, a tenth and all of the contacts: attempts/s and the server's peak RSS;
 * - PostgreSQL, ten campaigns under a limit of 1,000, one process and then two on one database.
 *
 *   BENCH_CONTACTS (default 100000)      contacts of the zero-latency runs
 *   BENCH_REALISTIC (default 15000)      contacts of the realistic run
 *   BENCH_PROCESS_CONTACTS (default BENCH_CONTACTS / 2) contacts of each PostgreSQL server run
 *   BENCH_DATABASES (default "sqlite,pg") which databases; BENCH_PG_URL=off also skips PostgreSQL
 *   BENCH_SERVER (default on)            "off" skips the server runs
 *   BENCH_IN_PROCESS (default on)        "off" skips the in-process runs
 *   BENCH_ONLY                           only the in-process runs whose name contains this
 *   BENCH_TELEMETRY (default on)         "off" skips the overhead of tracing and metrics (issue 25): one campaign at
 *                                        100, zero latency, BENCH_TELEMETRY_CONTACTS contacts (default 20000), run
 *                                        with telemetry off and on (OTLP traces to a receiver in another process,
 *                                        /metrics rendered every second), alternating, BENCH_TELEMETRY_ROUNDS times
 *                                        each (default 3); written to its section of bench/telemetry-results.md
 *   BENCH_TELEMETRY_ONLY                 "1": only that
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
import { Effect, Layer, Redacted, Schema } from "effect"
import { CreateCampaignRequest } from "@agentline/api/campaigns/Campaign"
import type { CampaignId } from "@agentline/api/Ids"
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { api, bootstrap, freePort, type ServerProcess, startServer, tempDir } from "../packages/http/test/Processes.js"
import { otlpSink, telemetryOn, writeSection } from "./telemetry.js"

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000)
const REALISTIC = Number(process.env.BENCH_REALISTIC ?? 15_000)
const PROCESS_CONTACTS = Number(process.env.BENCH_PROCESS_CONTACTS ?? Math.floor(CONTACTS / 2))
const SERVER = process.env.BENCH_SERVER !== "off"
const IN_PROCESS = process.env.BENCH_IN_PROCESS !== "off"
const root = NodePath.resolve(import.meta.dirname, "..")

interface Scenario {
  readonly name: string
  readonly campaigns: number
  /** Each campaign's `max_concurrency`. */
  readonly campaignLimit: number
  readonly organizationLimit: number
  /** In all campaigns together. */
  readonly contacts: number
  readonly ring: number
  readonly talk: number
}

interface Result {
  readonly dialect: "sqlite" | "pg"
  readonly scenario: Scenario
  readonly importRowsPerSecond: number
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

const millis = (value: unknown) => Date.parse(value instanceof Date ? value.toISOString() : String(value))

/** `count` distinct US numbers, `offset` apart from other campaigns' (numbers repeat across 120,000). */
const csvOf = (count: number, offset: number) => {
  const areas = [212, 213, 310, 312, 404, 415, 512, 617, 646, 702, 206, 303]
  const lines = ["phone_number"]
  for (let j = 0; j < count; j++) {
    const i = (offset + j) % 120_000
    lines.push(`+1${areas[Math.floor(i / 10000)]}555${String(i % 10000).padStart(4, "0")}`)
  }
  return lines.join("\n") + "\n"
}

const agentDefinition = {
  nodes: [
    { id: "s", type: "startCall", position: { x: 0, y: 0 }, data: { name: "s", prompt: "hi" } },
    { id: "e", type: "endCall", position: { x: 0, y: 1 }, data: { name: "e", prompt: "bye" } }
  ],
  edges: [{ id: "x", source: "s", target: "e", data: { label: "end", condition: "done" } }]
}

/**
 * From the attempts' timestamps: attempts/s (first claim to last end), the refill latencies (with a
 * campaign at its limit, its (k + limit)-th claim follows its k-th end) and the last end.
 */
const timings = (attempts: ReadonlyArray<{ campaign_id: unknown; created_at: unknown; ended_at: unknown }>, campaignLimit: number) => {
  const byCampaign = new Map<string, { starts: Array<number>; ends: Array<number> }>()
  for (const a of attempts) {
    const entry = byCampaign.get(String(a.campaign_id)) ?? { starts: [], ends: [] }
    entry.starts.push(millis(a.created_at))
    entry.ends.push(millis(a.ended_at))
    byCampaign.set(String(a.campaign_id), entry)
  }
  const refills: Array<number> = []
  let first = Infinity
  let last = -Infinity
  for (const { ends, starts } of byCampaign.values()) {
    starts.sort((a, b) => a - b)
    ends.sort((a, b) => a - b)
    first = Math.min(first, starts[0]!)
    last = Math.max(last, ends.at(-1)!)
    for (let k = 0; k + campaignLimit < starts.length; k++) refills.push(Math.max(0, starts[k + campaignLimit]! - ends[k]!))
  }
  refills.sort((a, b) => a - b)
  return { attemptsPerSecond: attempts.length / ((last - first) / 1000), refills, lastEnd: last }
}

// ------------------------------------------------------------------------------------------ in-process

const inProcess = (dialect: "sqlite" | "pg", scenario: Scenario) =>
  Effect.gen(function*() {
    const slug = scenario.name.replace(/\W+/g, "-")
    const admin = yield* (yield* Users).create({
      email: `bench@${slug}.local`, password: "bench-password", role: "admin", organization: { name: `bench-${slug}` }, mustChangePassword: false
    })
    const principal = acting(admin)
    yield* (yield* Organizations).setConcurrentCallLimit(principal.organizationId, scenario.organizationLimit)
    yield* (yield* TelephonyConfigs).create(principal, {
      name: "bench", is_default_outbound: true, config: { provider: "simulator", ring_seconds: scenario.ring, talk_seconds: scenario.talk }
    })
    const agent = yield* (yield* Workflows).create(principal, { name: "bench", workflow_definition: agentDefinition })
    const uploads = yield* Uploads
    const campaigns = yield* Campaigns
    const perCampaign = Math.floor(scenario.contacts / scenario.campaigns)
    const ids: Array<CampaignId> = []
    let importMillis = 0
    for (let c = 0; c < scenario.campaigns; c++) {
      const fileKey = yield* uploads.store(principal, "bench.csv", new TextEncoder().encode(csvOf(perCampaign, c * perCampaign)))
      const started = Date.now()
      const campaign = yield* campaigns.create(principal, yield* Schema.decodeUnknown(CreateCampaignRequest)({
        name: `bench-${c}`, workflow_id: agent.id, source_type: "csv", source_id: fileKey, max_concurrency: scenario.campaignLimit,
        retry_config: { enabled: false }, circuit_breaker: { enabled: false }
      }).pipe(Effect.orDie))
      importMillis += Date.now() - started
      ids.push(campaign.id)
    }
    const dispatcher = yield* Dispatcher
    const sql = yield* SqlClient.SqlClient
    const limit = Math.min(scenario.organizationLimit, scenario.campaigns * scenario.campaignLimit)
    let samples = 0
    let sum = 0
    let peakRss = 0
    for (const id of ids) yield* campaigns.start(principal, id)
    // Calls in progress come from the dispatcher's memory every 20 ms; what is queued and whether every
    // campaign completed from the database (indexed queries) every 200 ms, so that sampling takes
    // little from the dispatcher (on SQLite it shares the one connection).
    let queued = 1
    let lastRead = 0
    while (true) {
      const inProgress = yield* dispatcher.inProgress
      if (queued > 0) {
        samples++
        sum += inProgress
      }
      peakRss = Math.max(peakRss, process.memoryUsage().rss)
      if (Date.now() - lastRead >= 200) {
        lastRead = Date.now()
        const [row] = yield* sql<{ queued: number; running: number }>`SELECT
            CAST((SELECT COUNT(*) FROM contacts WHERE ${sql.in("campaign_id", ids)} AND state = 'queued') AS INTEGER) AS queued,
            CAST((SELECT COUNT(*) FROM campaigns WHERE organization_id = ${principal.organizationId} AND state <> 'completed') AS INTEGER) AS running`
        queued = Number(row!.queued)
        if (Number(row!.running) === 0) break
      }
      yield* Effect.sleep("20 millis")
    }
    const attempts = yield* sql<{ campaign_id: unknown; created_at: unknown; ended_at: unknown }>`
      SELECT campaign_id, created_at, ended_at FROM call_attempts WHERE organization_id = ${principal.organizationId}`
    const [done] = yield* sql<{ at: unknown }>`SELECT MAX(completed_at) AS at FROM campaigns WHERE organization_id = ${principal.organizationId}`
    const t = timings(attempts, scenario.campaignLimit)
    return {
      dialect,
      scenario,
      importRowsPerSecond: (perCampaign * scenario.campaigns) / (importMillis / 1000),
      attemptsPerSecond: t.attemptsPerSecond,
      refillP50: percentile(t.refills, 50),
      refillP99: percentile(t.refills, 99),
      utilization: samples === 0 ? NaN : sum / samples / limit,
      peak: yield* dispatcher.peakInProgress,
      completionLagMs: millis(done!.at) - t.lastEnd,
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

const databaseLayer = (dialect: "sqlite" | "pg", dataDir: string) =>
  dialect === "pg"
    ? Layer.unwrapScoped(Effect.map(Testing.freshPgDatabase, ({ url }) => Database.layerPg({ url: Redacted.make(url), maxConnections: 10 }))).pipe(Layer.orDie)
    : Database.layerSqlite({ filename: NodePath.join(dataDir, "bench.db") }).pipe(Layer.orDie)

// ------------------------------------------------------------------------------------------ server processes

interface ServerResult {
  readonly dialect: "sqlite" | "pg"
  readonly processes: number
  readonly campaigns: number
  readonly contacts: number
  readonly attemptsPerSecond: number
  /** The most calls in progress at once, of the organization and of any one campaign (sampled from the database). */
  readonly peakOrganization: number
  readonly peakCampaign: number
  readonly organizationLimit: number
  readonly campaignLimit: number
  readonly peakRssMb: number
  readonly idleRssMb: number
}

const rssMb = (pid: number | undefined) => {
  try {
    const status = NodeFs.readFileSync(`/proc/${pid}/status`, "utf8")
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}

/** Upload a CSV through the API's presigned URL; its file key. */
const upload = async (base: string, key: string, csv: string) => {
  const presigned = await api(base, key, "POST", "/api/v1/storage/presigned-upload-url", {
    file_name: "contacts.csv", file_size: Buffer.byteLength(csv), content_type: "text/csv"
  })
  const put = await fetch(presigned.upload_url.replace(/^https?:\/\/[^/]+/, base), { method: "PUT", headers: { "content-type": "text/csv" }, body: csv })
  if (!put.ok) throw new Error(`upload failed: ${put.status} ${await put.text()}`)
  return presigned.file_key as string
}

const serverRun = (
  dialect: "sqlite" | "pg",
  options: { readonly processes: number; readonly campaigns: number; readonly contacts: number; readonly campaignLimit: number; readonly organizationLimit: number }
) =>
  Effect.gen(function*() {
    const dataDir = tempDir()
    const databaseUrl = dialect === "pg" ? (yield* Testing.freshPgDatabase).url : undefined
    const database = dialect === "pg"
      ? Database.layerPg({ url: Redacted.make(databaseUrl!), maxConnections: 2 })
      : Database.layerSqlite({ filename: NodePath.join(dataDir, "agentline.db") })
    const key = yield* Effect.promise(() => bootstrap(databaseUrl, dataDir, "bench"))
    const servers: Array<ServerProcess> = []
    yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all(servers.map((s) => s.kill()))).pipe(Effect.andThen(() => NodeFs.rmSync(dataDir, { recursive: true, force: true }))))
    for (let i = 0; i < options.processes; i++) servers.push(yield* Effect.promise(() => startServer(databaseUrl, dataDir, { AGENTLINE_DISPATCHER_LEASE_SECONDS: "15" })))
    const base = servers[0]!.url
    yield* Effect.sleep("2 seconds")
    const idleRssMb = Math.max(...servers.map((s) => rssMb(s.child.pid)))
    const ids = yield* Effect.promise(async () => {
      await api(base, key, "PUT", "/api/v1/organizations/current/concurrent-call-limit", { concurrent_call_limit: options.organizationLimit })
      await api(base, key, "POST", "/api/v1/organizations/telephony-configs", {
        name: "sim", is_default_outbound: true, config: { provider: "simulator", ring_seconds: 0, talk_seconds: 0 }
      })
      const agent = await api(base, key, "POST", "/api/v1/workflow/create/definition", { name: "bench", workflow_definition: agentDefinition })
      const perCampaign = Math.floor(options.contacts / options.campaigns)
      const ids: Array<number> = []
      for (let c = 0; c < options.campaigns; c++) {
        const fileKey = await upload(base, key, csvOf(perCampaign, c * perCampaign))
        const campaign = await api(base, key, "POST", "/api/v1/campaign/create", {
          name: `bench-${c}`, workflow_id: agent.id, source_type: "csv", source_id: fileKey, max_concurrency: options.campaignLimit,
          retry_config: { enabled: false }, circuit_breaker: { enabled: false }
        })
        ids.push(campaign.id)
      }
      return ids
    })
    // Each campaign is started through a process in turn: the process that starts a campaign takes it.
    for (const [i, id] of ids.entries()) yield* Effect.promise(() => api(servers[i % servers.length]!.url, key, "POST", `/api/v1/campaign/${id}/start`))
    return yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      let peakOrganization = 0
      let peakCampaign = 0
      let peakRss = 0
      const [organization] = yield* sql<{ id: number }>`SELECT id FROM organizations`
      while (true) {
        // By the (organization_id, state) index: a scan of every attempt would take from the servers.
        const active = yield* sql<{ campaign_id: unknown; n: number }>`SELECT campaign_id, CAST(COUNT(*) AS INTEGER) AS n FROM call_attempts
          WHERE organization_id = ${organization!.id} AND state IN ('claimed', 'dialing') GROUP BY campaign_id`
        peakOrganization = Math.max(peakOrganization, active.reduce((s, r) => s + Number(r.n), 0))
        peakCampaign = Math.max(peakCampaign, ...active.map((r) => Number(r.n)))
        peakRss = Math.max(peakRss, ...servers.map((s) => rssMb(s.child.pid)))
        const [row] = yield* sql<{ n: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM campaigns WHERE organization_id = ${organization!.id} AND state <> 'completed'`
        if (Number(row!.n) === 0) break
        yield* Effect.sleep("50 millis")
      }
      const attempts = yield* sql<{ campaign_id: unknown; created_at: unknown; ended_at: unknown }>`SELECT campaign_id, created_at, ended_at FROM call_attempts`
      return {
        dialect,
        processes: options.processes,
        campaigns: options.campaigns,
        contacts: attempts.length,
        attemptsPerSecond: timings(attempts, options.campaignLimit).attemptsPerSecond,
        peakOrganization,
        peakCampaign,
        organizationLimit: options.organizationLimit,
        campaignLimit: options.campaignLimit,
        peakRssMb: peakRss,
        idleRssMb
      } satisfies ServerResult
    }).pipe(Effect.provide(database.pipe(Layer.orDie)))
  }).pipe(Effect.scoped)

// ------------------------------------------------------------------------------------------ report

/**
 * What a target that is not met is held back by, from profiles of these runs (`--cpu-prof`, heap
 * snapshots), and what would meet it. Printed under the target only when it is not met.
 */
const WHY = {
  attempts: (r: Result) =>
    r.dialect === "sqlite" && r.scenario.campaigns > 1
      ? "ten campaign loops take turns on SQLite's one connection, each with a claim transaction of its own. One claim loop per organization, filling all its campaigns in one transaction, would remove the turns."
      : r.dialect === "sqlite"
      ? "one Node process does all the work of each call (claim, run, place, three simulator events, end) at about 0.5 ms of CPU per call: in the profile about a third is Effect's runtime (fibers, contexts, spans per event), a sixth SQLite's statements and a tenth garbage collection; run to run it varies by ±10 % on this machine. Fewer effects per call (the simulator's events handled per batch, no span per event) would meet it."
      : "PostgreSQL shares the two cores with the dispatcher; each batch still costs about fifteen round trips. A machine with cores to spare, or the per-organization claim loop, would meet it.",
  refill:
    "at zero latency calls end in bursts and the next claims come as a batch, after the ending calls' group commit (p50 about 25 ms on SQLite). With several campaigns their loops take turns: on SQLite's one connection, and on PostgreSQL on the organization's row lock, which a claim now holds while it writes its batch's runs. With realistic calls SQLite's p99 is a few milliseconds. One claim loop per organization (one lock, one transaction for all its campaigns) and counters instead of COUNT over the calls in progress would shorten it.",
  utilization:
    "the 1,000 first claims of ten campaigns at the start and the claims' turns on the organization's row lock (see refill) leave slots empty for a moment; the per-organization claim loop would fill them.",
  csv:
    "validating each number with libphonenumber-js takes about 12 µs (the library compiles a regular expression for each pattern it matches; 29 % of the import's CPU), on top of parsing, normalizing and inserting: about 35,000 rows/s on one core. Validating in worker threads on a machine with more cores, or a compiled-pattern cache in libphonenumber-js, would meet it.",
  rss:
    "idle, the compiled server holds about 190 MB: ~70 MB of live heap, of which ~20 MB are the API documentation bundles (Scalar's 6.6 MB script, kept as module source and as the /docs page; Swagger UI, loaded through @effect/platform's index), plus the code of every module. Under ~1,800 calls/s V8 grows the heap to several hundred MB although the live data after a collection stays near 80 MB. NODE_OPTIONS=--max-old-space-size=96 keeps the server near 200 MB at a third of the throughput (it collects all the time). Loading the documentation on first use, importing @effect/platform's modules one by one instead of its index, and fewer short-lived objects per call would bring it down.",
  flat:
    "not retained data: a heap snapshot after 5,000 and after 20,000 calls differs by ~1 MB (the simulator's per-call records, now bounded); the growth is V8 letting the heap grow over a longer run at a high allocation rate (see the RSS target).",
  twoProcesses:
    "this machine has two cores for both processes and PostgreSQL: one process already uses about one core and PostgreSQL most of the other. On a machine with a core per process and cores for the database the second process adds its own throughput (each campaign is dialed by one process; ten campaigns split five and five).",
  apiThroughput:
    "every request runs through Effect's HTTP stack (a fiber, its context, the router, middleware, the API key check from a cache, a span): about 0.3 ms of CPU per request against ~25 µs for a bare node:http handler. Not reachable with HttpApi on this stack; a hand-written node:http fast path for hot reads would be.",
  apiLatency:
    "the p99 of a 20 s window on this shared 2-core machine is set by a few stalls (a major collection, a SQLite checkpoint) while the load generator runs on the same cores: two runs of the same API code (commits 5d77b9e and b7718a2) measured 1.5 ms and 24 ms (p50 0.3 ms both). A machine where the load generator has cores of its own would measure the server alone."
} as const


// ----------------------------------------------------------------------------- telemetry overhead

const telemetryOverhead = Effect.gen(function*() {
  const contacts = Number(process.env.BENCH_TELEMETRY_CONTACTS ?? 20_000)
  const rounds = Number(process.env.BENCH_TELEMETRY_ROUNDS ?? 3)
  const scenario: Scenario = { name: "one campaign, zero latency", campaigns: 1, campaignLimit: 100, organizationLimit: 100, contacts, ring: 0, talk: 0 }
  const runs: Array<{ readonly on: boolean; readonly attemptsPerSecond: number; readonly cpuMillisPerThousand: number; readonly load: number }> = []
  for (let round = 0; round < rounds; round++) {
    for (const on of [false, true]) {
      const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-bench-"))
      const load = NodeOs.loadavg()[0]!
      console.error(`[bench] telemetry ${on ? "on" : "off"}, round ${round + 1}: ${contacts} contacts (load ${load.toFixed(2)})…`)
      const app = appFor(databaseLayer("sqlite", dataDir), dataDir)
      const cpu = process.cpuUsage()
      const result = on
        ? yield* Effect.gen(function*() {
          const port = yield* Effect.promise(freePort)
          yield* otlpSink(port)
          return yield* inProcess("sqlite", scenario).pipe(Effect.provide(app.pipe(Layer.provide(telemetryOn(port)))))
        }).pipe(Effect.scoped)
        : yield* inProcess("sqlite", scenario).pipe(Effect.provide(app), Effect.scoped)
      const used = process.cpuUsage(cpu)
      // CPU time of this process per thousand attempts (the whole run: setup, import, dialing): far less
      // dependent on the machine's load than attempts per second.
      const cpuMillisPerThousand = (used.user + used.system) / 1000 / (contacts / 1000)
      console.error(`[bench]   ${result.attemptsPerSecond.toFixed(0)} attempts/s, ${cpuMillisPerThousand.toFixed(0)} CPU ms per 1,000 attempts`)
      runs.push({ on, attemptsPerSecond: result.attemptsPerSecond, cpuMillisPerThousand, load })
      NodeFs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
  const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const off = median(runs.filter((r) => !r.on).map((r) => r.attemptsPerSecond))
  const on = median(runs.filter((r) => r.on).map((r) => r.attemptsPerSecond))
  const overhead = (off - on) / off
  const cpuOff = median(runs.filter((r) => !r.on).map((r) => r.cpuMillisPerThousand))
  const cpuOn = median(runs.filter((r) => r.on).map((r) => r.cpuMillisPerThousand))
  const cpuOverhead = (cpuOn - cpuOff) / cpuOff
  const markdown = [
    "## Dispatcher: throughput and CPU",
    "",
    `Produced by \`BENCH_TELEMETRY_ONLY=1 npm run bench:dispatcher\` on ${new Date().toISOString().slice(0, 10)}: the in-process dispatcher on SQLite,`,
    `one campaign at \`max_concurrency\` 100 with zero-latency simulator calls, ${num(contacts)} contacts, run with telemetry off and on`,
    `alternately, ${rounds} times each. On: every span exported over OTLP/HTTP (BatchSpanProcessor, to a receiver in another`,
    "process) and the Prometheus text rendered every second. Metrics are recorded in both (they are Effect metrics, always on).",
    "The machine is shared (2 cores, other builds and tests running): the 1-minute load average at each run's start is listed.",
    "",
    "CPU time per attempt (this process's user + system time over the whole run, per 1,000 attempts) depends far less on",
    "the other processes than attempts per second does, so it is the figure to judge by on a loaded machine.",
    "",
    "| round | telemetry | attempts/s | CPU ms per 1,000 attempts | load |",
    "|---|---|---|---|---|",
    ...runs.map((r, i) =>
      `| ${Math.floor(i / 2) + 1} | ${r.on ? "on" : "off"} | ${num(r.attemptsPerSecond)} | ${num(r.cpuMillisPerThousand)} | ${r.load.toFixed(2)} |`
    ),
    "",
    `Medians: off ${num(off)} attempts/s and ${num(cpuOff)} CPU ms per 1,000 attempts; on ${num(on)} attempts/s and ${num(cpuOn)} CPU ms.`,
    `Throughput overhead ${num(overhead * 100, 1)} %; CPU overhead ${num(cpuOverhead * 100, 1)} % (target < 10 %: ${mark(cpuOverhead < 0.1)}).`,
    ""
  ].join("\n")
  writeSection(markdown)
  console.error(`[bench] telemetry overhead: throughput ${num(overhead * 100, 1)} %, CPU ${num(cpuOverhead * 100, 1)} %`)
})

const mark = (met: boolean) => (met ? "met" : "**not met**")
const num = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { maximumFractionDigits: digits }) : "n/a")

const main = Effect.gen(function*() {
  if (process.env.BENCH_TELEMETRY !== "off") yield* telemetryOverhead
  if (process.env.BENCH_TELEMETRY_ONLY === "1") return
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim()
  const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/*results*"], { cwd: root, encoding: "utf8" }).trim() !== ""
  const databases = (process.env.BENCH_DATABASES ?? (process.env.BENCH_PG_URL === "off" ? "sqlite" : "sqlite,pg"))
    .split(",").filter((d): d is "sqlite" | "pg" => d === "sqlite" || d === "pg")
  const scenarios: ReadonlyArray<Scenario> = [
    { name: "one campaign, zero latency", campaigns: 1, campaignLimit: 100, organizationLimit: 100, contacts: CONTACTS, ring: 0, talk: 0 },
    { name: "10 campaigns × 100, zero latency", campaigns: 10, campaignLimit: 100, organizationLimit: 1000, contacts: CONTACTS, ring: 0, talk: 0 },
    { name: "10 campaigns × 100, realistic (1 s ring, 3 s talk)", campaigns: 10, campaignLimit: 100, organizationLimit: 1000, contacts: REALISTIC, ring: 1, talk: 3 },
    { name: "one campaign, zero latency, a tenth of the contacts", campaigns: 1, campaignLimit: 100, organizationLimit: 100, contacts: Math.max(1000, Math.floor(CONTACTS / 10)), ring: 0, talk: 0 }
  ]
  const results: Array<Result> = []
  for (const dialect of IN_PROCESS ? databases : []) {
    for (const scenario of scenarios.filter((s) => s.name.includes(process.env.BENCH_ONLY ?? ""))) {
      const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-bench-"))
      console.error(`[bench] ${dialect}: ${scenario.name}, ${scenario.contacts} contacts…`)
      const result = yield* inProcess(dialect, scenario).pipe(Effect.provide(appFor(databaseLayer(dialect, dataDir), dataDir)), Effect.scoped)
      console.error(`[bench]   ${result.attemptsPerSecond.toFixed(0)} attempts/s, refill p99 ${result.refillP99} ms, peak ${result.peak}`)
      results.push(result)
      NodeFs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
  const servers: Array<ServerResult> = []
  if (SERVER) {
    if (databases.includes("sqlite")) {
      for (const contacts of [Math.max(1000, Math.floor(CONTACTS / 10)), CONTACTS]) {
        console.error(`[bench] sqlite server: one campaign, ${contacts} contacts…`)
        servers.push(yield* serverRun("sqlite", { processes: 1, campaigns: 1, contacts, campaignLimit: 100, organizationLimit: 100 }))
        console.error(`[bench]   ${servers.at(-1)!.attemptsPerSecond.toFixed(0)} attempts/s, peak RSS ${servers.at(-1)!.peakRssMb.toFixed(0)} MB`)
      }
    }
    if (databases.includes("pg")) {
      for (const processes of [1, 2]) {
        console.error(`[bench] pg server: ${processes} process(es), 10 campaigns, ${PROCESS_CONTACTS} contacts…`)
        servers.push(yield* serverRun("pg", { processes, campaigns: 10, contacts: PROCESS_CONTACTS, campaignLimit: 100, organizationLimit: 1000 }))
        console.error(`[bench]   ${servers.at(-1)!.attemptsPerSecond.toFixed(0)} attempts/s, peak in progress ${servers.at(-1)!.peakOrganization}`)
      }
    }
  }

  const find = (dialect: string, prefix: string) => results.find((r) => r.dialect === dialect && r.scenario.name.startsWith(prefix))
  const targets: Array<string> = []
  const target = (label: string, value: string, met: boolean, why?: string) =>
    targets.push(`- ${label}: ${value}, ${mark(met)}${!met && why !== undefined ? `\n  - *Why, and what would meet it:* ${why}` : ""}`)
  for (const [dialect, goal] of [["sqlite", 2000], ["pg", 1000]] as const) {
    for (const prefix of ["one campaign, zero latency", "10 campaigns × 100, zero latency"]) {
      const r = find(dialect, prefix)
      if (r) target(`${dialect}, ${prefix}: ≥ ${num(goal)} attempts/s`, `${num(r.attemptsPerSecond)} attempts/s`, r.attemptsPerSecond >= goal, WHY.attempts(r))
    }
  }
  const all = results
  if (all.length > 0) {
    const worstRefill = Math.max(...all.map((r) => r.refillP99).filter(Number.isFinite))
    target("refill p99 < 50 ms (every run)", all.map((r) => `${r.dialect} ${r.scenario.name}: ${num(r.refillP99)} ms`).join("; "), worstRefill < 50, WHY.refill)
    for (const r of all.filter((r) => r.scenario.ring > 0)) {
      target(`${r.dialect}: utilization ≥ 99 % with ${r.scenario.organizationLimit} calls in progress (1 s ring, 3 s talk)`, `${num(r.utilization * 100, 1)} %`, r.utilization >= 0.99, WHY.utilization)
    }
    const worstLag = Math.max(...all.map((r) => r.completionLagMs))
    target("completion lag < 1 s (every run)", `at most ${num(worstLag)} ms`, worstLag < 1000)
    const slowestImport = Math.min(...all.filter((r) => r.scenario.ring === 0 && r.scenario.contacts >= 10_000).map((r) => r.importRowsPerSecond))
    target("CSV import ≥ 100,000 rows/s", `slowest ${num(slowestImport)} rows/s`, slowestImport >= 100_000, WHY.csv)
    target("limits never exceeded (in-process)", all.map((r) => `${r.dialect} ${r.scenario.name}: peak ${r.peak} of ${Math.min(r.scenario.organizationLimit, r.scenario.campaigns * r.scenario.campaignLimit)}`).join("; "),
      all.every((r) => r.peak <= Math.min(r.scenario.organizationLimit, r.scenario.campaigns * r.scenario.campaignLimit)))
  }
  const sqliteServers = servers.filter((s) => s.dialect === "sqlite")
  if (sqliteServers.length === 2) {
    const [small, large] = sqliteServers as [ServerResult, ServerResult]
    target("compiled server peak RSS < 200 MB", `${num(large.peakRssMb)} MB at ${num(large.contacts)} contacts (idle ${num(large.idleRssMb)} MB)`, large.peakRssMb < 200, WHY.rss)
    target("RSS flat in the number of contacts (within 10 %)", `${num(small.peakRssMb)} MB at ${num(small.contacts)}, ${num(large.peakRssMb)} MB at ${num(large.contacts)}`, large.peakRssMb <= small.peakRssMb * 1.1, WHY.flat)
  }
  const pgServers = servers.filter((s) => s.dialect === "pg")
  if (pgServers.length === 2) {
    const [one, two] = pgServers as [ServerResult, ServerResult]
    const ratio = two.attemptsPerSecond / one.attemptsPerSecond
    target("two processes on one PostgreSQL ≥ 1.6 × one", `${num(two.attemptsPerSecond)} vs ${num(one.attemptsPerSecond)} attempts/s (× ${ratio.toFixed(2)})`, ratio >= 1.6, WHY.twoProcesses)
    target("two processes: limits never exceeded", `peak ${two.peakOrganization} of ${two.organizationLimit} (organization), ${two.peakCampaign} of ${two.campaignLimit} (campaign)`,
      two.peakOrganization <= two.organizationLimit && two.peakCampaign <= two.campaignLimit)
  }
  // The API figures come from `bench/api.bench.ts` (run just before this by `npm run bench`).
  const apiFile = new URL("./api-results.json", import.meta.url)
  const apiResults = NodeFs.existsSync(apiFile) ? JSON.parse(NodeFs.readFileSync(apiFile, "utf8")) as { commit: string; targets: Array<{ label: string; value: string; met: boolean }> } : undefined
  if (apiResults !== undefined) {
    for (const t of apiResults.targets) target(t.label, `${t.value}${apiResults.commit === commit ? "" : ` (measured on commit ${apiResults.commit})`}`, t.met, t.label.includes("throughput") ? WHY.apiThroughput : WHY.apiLatency)
  } else targets.push("- API under load: not measured (`npm run bench:api`)")

  const row = (r: Result) =>
    `| ${r.dialect} | ${r.scenario.name} | ${num(r.scenario.contacts)} | ${num(r.importRowsPerSecond)} rows/s | ${num(r.attemptsPerSecond)} | ${num(r.refillP50)} / ${num(r.refillP99)} ms | ${r.scenario.ring > 0 ? `${num(r.utilization * 100, 1)} %` : "–"} | ${r.peak} | ${num(r.completionLagMs)} ms | ${num(r.peakRssMb)} MB |`
  const serverRow = (s: ServerResult) =>
    `| ${s.dialect} | ${s.processes} | ${s.campaigns} | ${num(s.contacts)} | ${num(s.attemptsPerSecond)} | ${s.peakOrganization} / ${s.organizationLimit} | ${s.peakCampaign} / ${s.campaignLimit} | ${num(s.idleRssMb)} MB | ${num(s.peakRssMb)} MB |`
  const markdown = [
    "# Dispatcher benchmark",
    "",
    `Run ${new Date().toISOString()} on commit ${commit}${dirty ? " (with uncommitted changes)" : ""}, ${NodeOs.cpus().length} × ${NodeOs.cpus()[0]?.model ?? "cpu"}, ${(NodeOs.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}. PostgreSQL runs on the same machine.`,
    "Simulator provider, retries and breaker off. Produced by `npm run bench` (this file, then `api-results.md` and `voice-results.md`).",
    "",
    "## Targets",
    "",
    ...targets,
    "",
    "## In-process runs",
    "",
    "The dispatcher runs in the benchmark's process (its counters are sampled); the RSS column is that process's, benchmark included.",
    "",
    "| database | scenario | contacts | CSV import | attempts/s | refill p50 / p99 | utilization | peak in progress | completion lag | peak RSS |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...results.map(row),
    "",
    "## Server runs",
    "",
    "`agentline serve` (compiled), driven through its API; RSS is the server process's (`VmRSS`), in progress is sampled from the database every 50 ms.",
    "",
    "| database | processes | campaigns | contacts | attempts/s | peak in progress (organization) | peak in progress (one campaign) | idle RSS | peak RSS |",
    "|---|---|---|---|---|---|---|---|---|",
    ...servers.map(serverRow),
    "",
    "- **attempts/s**: call attempts placed per second, first claim to last call end.",
    "- **refill**: with a campaign at its limit, its (k + limit)-th claim after its k-th call end (database timestamps, ms resolution).",
    "- **utilization**: mean calls in progress / the limit while contacts remained queued (in progress sampled every 20 ms, the queue every 200 ms).",
    "- **completion lag**: the last call's end → the last campaign's `completed_at`.",
    "- **CSV import**: rows per second of `POST /campaign/create` work (parse, validate, normalize, insert) for the run's files.",
    ""
  ].join("\n")
  NodeFs.writeFileSync(new URL("./results.md", import.meta.url), markdown)
  console.log(markdown)
})

Effect.runPromise(main).catch((e) => {
  console.error(e)
  process.exit(1)
})
