/**
 * `npm run bench:runs`: `GET /runs`'s filters and search over 1,000,000 runs of one organization, on
 * SQLite and PostgreSQL, written to bench/runs-results.md. Issue 26's target: a filter answers in under
 * 100 ms at 1M runs on both databases.
 *
 * The runs are seeded by SQL alone (`INSERT … SELECT` over a series: no row crosses into JavaScript), in
 * batches, through the real migrations (so SQLite's search triggers and PostgreSQL's GIN index are kept
 * while seeding, as in production), then `ANALYZE`. Each query is `RunSearch.list` (the service behind
 * the route: the query, decoding, the cursor), timed warm: the median and the 95th percentile of
 * `BENCH_RUNS_REPEAT` runs. A second organization's 10,000 runs share the tables. Then an export of a
 * whole agent's runs (200,000) is streamed to nowhere, with its rate and the heap it grew.
 *
 *   BENCH_RUNS (default 1000000), BENCH_RUNS_REPEAT (default 15), BENCH_DATABASES (default "sqlite,pg")
 *   BENCH_RUNS_SQLITE_FILE, BENCH_RUNS_PG_URL: a database kept between runs (seeded by the first run that
 *     finds it without the runs; otherwise a fresh one, removed after)
 *   BENCH_RUNS_EXPLAIN=1: prints each query's plan (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN
 *     ANALYZE with buffers) as it runs
 *
 * A benchmark, not a test: figures depend on the machine and its load, written with the load average.
 */
import { CampaignId, WorkflowId } from "@agentline/api/Ids"
import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import type { RunListParams } from "@agentline/api/runs/RunSearch"
import { RunSearch } from "@agentline/core/runs/RunSearch"
import { Database, Migrations, Repositories, Testing } from "@agentline/sql"
import { SqlClient, Statement } from "@effect/sql"
import { Effect, Layer, Redacted, Ref, Stream } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const RUNS = Number(process.env.BENCH_RUNS ?? 1_000_000)
const REPEAT = Number(process.env.BENCH_RUNS_REPEAT ?? 15)
const DATABASES = (process.env.BENCH_DATABASES ?? "sqlite,pg").split(",").map((d) => d.trim()) as Array<"sqlite" | "pg">
const KEPT_SQLITE = process.env.BENCH_RUNS_SQLITE_FILE
const KEPT_PG = process.env.BENCH_RUNS_PG_URL
const EXPLAIN = process.env.BENCH_RUNS_EXPLAIN === "1"
const BATCH = 100_000
const TARGET_MS = 100
const root = NodePath.resolve(import.meta.dirname, "..")

const DISPOSITIONS = ["confirmed", "rescheduled", "not_interested", "voicemail", "busy", "no_answer", "transferred", "callback"]
const OUTCOMES = ["completed", "completed", "completed", "busy", "no_answer", "voicemail", "failed", "canceled"]
const WORDS = [
  "appointment", "tuesday", "friday", "morning", "evening", "doctor", "dentist", "invoice", "payment", "delivery",
  "address", "reschedule", "confirm", "cancel", "insurance", "refund", "account", "password", "order", "shipping",
  "monday", "weekend", "pharmacy", "clinic", "billing", "support", "manager", "callback", "tomorrow", "today",
  "question", "price"
]
const NAMES = ["Maria", "James", "Aiko", "Oluwaseun", "Priya", "Lukas", "Fatima", "Chen"]

const caseOf = (expr: string, values: ReadonlyArray<string>) =>
  `CASE ${expr} ${values.map((v, i) => `WHEN ${i} THEN '${v}'`).join(" ")} END`

/** `INSERT … SELECT` of runs `from`..`to`-1 for the organization, its 5 agents from `firstAgent`. */
const seedSql = (dialect: "sqlite" | "pg", org: number, firstAgent: number, from: number, to: number) => {
  const disposition = caseOf("n % 8", DISPOSITIONS)
  const outcome = caseOf("(n / 3) % 8", OUTCOMES)
  const name = caseOf("(n / 7) % 8", NAMES)
  const w1 = caseOf("(n * 7) % 32", WORDS)
  const w2 = caseOf("(n * 13 + 5) % 32", WORDS)
  const rare = "CASE WHEN n % 10007 = 0 THEN ' zanzibar' ELSE '' END"
  const columns = `organization_id, workflow_id, campaign_id, name, mode, call_type, is_completed, initial_context,
    gathered_context, usage_info, cost_info, logs, created_at, updated_at`
  if (dialect === "pg") {
    const said = `'I would like the ' || ${w1} || ' on ' || ${w2} || ${rare}`
    return `INSERT INTO workflow_runs (${columns})
      SELECT ${org}, ${firstAgent} + n % 5, CASE WHEN n % 4 = 0 THEN NULL ELSE n % 50 + 1 END, 'WR-' || n, 'twilio',
        CASE WHEN n % 3 = 0 THEN 'inbound' ELSE 'outbound' END, n % 100 <> 0,
        jsonb_build_object(CASE WHEN n % 3 = 0 THEN 'caller_number' ELSE 'called_number' END, '+1415' || lpad(n::text, 7, '0')),
        CASE WHEN n % 100 = 0 THEN NULL ELSE jsonb_build_object('mapped_call_disposition', ${disposition}, 'outcome', ${outcome}, 'first_name', ${name}) END,
        CASE WHEN n % 100 = 0 THEN NULL ELSE jsonb_build_object('call_duration_seconds', (n * 37) % 600) END,
        CASE WHEN n % 100 = 0 THEN NULL ELSE jsonb_build_object('total_cost_usd', round(((n * 37) % 600) * 0.0003, 4)) END,
        CASE WHEN n % 100 = 0 THEN NULL ELSE jsonb_build_object('transcript', jsonb_build_array(
          jsonb_build_object('role', 'assistant', 'content', 'Hello, how can I help?'),
          jsonb_build_object('role', 'user', 'content', ${said}))) END,
        timestamptz '2025-12-01T00:00:00Z' + n * interval '30 seconds',
        timestamptz '2025-12-01T00:00:00Z' + n * interval '30 seconds'
      FROM generate_series(${from}, ${to - 1}) AS n`
  }
  const said = `'I would like the ' || ${w1} || ' on ' || ${w2} || ${rare}`
  const at = `strftime('%Y-%m-%dT%H:%M:%fZ', 1764547200 + n * 30, 'unixepoch')`
  return `WITH RECURSIVE s(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM s WHERE n < ${to - 1})
    INSERT INTO workflow_runs (${columns})
    SELECT ${org}, ${firstAgent} + n % 5, CASE WHEN n % 4 = 0 THEN NULL ELSE n % 50 + 1 END, 'WR-' || n, 'twilio',
      CASE WHEN n % 3 = 0 THEN 'inbound' ELSE 'outbound' END, CASE WHEN n % 100 = 0 THEN 0 ELSE 1 END,
      json_object(CASE WHEN n % 3 = 0 THEN 'caller_number' ELSE 'called_number' END, printf('+1415%07d', n)),
      CASE WHEN n % 100 = 0 THEN NULL ELSE json_object('mapped_call_disposition', ${disposition}, 'outcome', ${outcome}, 'first_name', ${name}) END,
      CASE WHEN n % 100 = 0 THEN NULL ELSE json_object('call_duration_seconds', (n * 37) % 600) END,
      CASE WHEN n % 100 = 0 THEN NULL ELSE json_object('total_cost_usd', round(((n * 37) % 600) * 0.0003, 4)) END,
      CASE WHEN n % 100 = 0 THEN NULL ELSE json_object('transcript', json_array(
        json_object('role', 'assistant', 'content', 'Hello, how can I help?'),
        json_object('role', 'user', 'content', ${said}))) END,
      ${at}, ${at}
    FROM s`
}

const seedAgents = (org: number, label: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ids: Array<number> = []
    for (let i = 0; i < 5; i++) {
      const rows = yield* sql<{ id: number }>`INSERT INTO workflows (organization_id, workflow_uuid, name, status, created_at, updated_at)
        VALUES (${org}, ${`${label}-${i}-${Math.random()}`}, ${`${label} agent ${i}`}, 'active', ${"2025-12-01T00:00:00.000Z"}, ${"2025-12-01T00:00:00.000Z"})
        RETURNING id`
      ids.push(Number(rows[0]!.id))
    }
    // Consecutive ids: the seed's `firstAgent + n % 5`.
    if (ids[4]! - ids[0]! !== 4) return yield* Effect.dieMessage("agents' ids are not consecutive")
    return ids
  })

/** Prints the plan of the page's query (the statement with a LIMIT) that `effect` runs. */
const explain = <A, E, R>(dialect: "sqlite" | "pg", name: string, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* Ref.make<Array<readonly [string, ReadonlyArray<unknown>]>>([])
    yield* Statement.withTransformer(effect, (statement) =>
      Effect.as(Ref.update(statements, (all) => [...all, statement.compile()]), statement))
    const page = (yield* Ref.get(statements)).find(([text]) => /LIMIT/.test(text) && /ORDER BY/.test(text))
    if (page === undefined) return
    const [text, params] = page
    const plan = yield* sql.unsafe<Record<string, unknown>>(
      dialect === "pg" ? `EXPLAIN (ANALYZE, BUFFERS) ${text}` : `EXPLAIN QUERY PLAN ${text}`,
      params
    )
    const lines = plan.map((row) => String(row["QUERY PLAN"] ?? row["detail"]))
    process.stdout.write(`[${dialect}] plan of "${name}":\n  ${lines.join("\n  ")}\n`)
  }).pipe(Effect.orDie)

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const benchDialect = (dialect: "sqlite" | "pg") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* Migrations.run
    const orgs = yield* OrganizationsRepo
    const org = (yield* orgs.findOrCreate("bench-runs", "2025-12-01T00:00:00.000Z")).id
    const neighbour = (yield* orgs.findOrCreate("bench-neighbour", "2025-12-01T00:00:00.000Z")).id
    const seeded = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM workflow_runs WHERE organization_id = ${org}`
    const kept = Number(seeded[0]!.n) >= RUNS
    const agents = kept
      ? (yield* sql<{ id: number }>`SELECT id FROM workflows WHERE organization_id = ${org} ORDER BY id`).map((r) => Number(r.id))
      : yield* seedAgents(org, "bench")

    const seedStart = performance.now()
    if (!kept) {
      const theirs = yield* seedAgents(neighbour, "neighbour")
      for (let from = 0; from < RUNS; from += BATCH) {
        yield* sql.withTransaction(sql.unsafe(seedSql(dialect, org, agents[0]!, from, Math.min(RUNS, from + BATCH))))
        process.stdout.write(`\r[${dialect}] seeded ${Math.min(RUNS, from + BATCH)} runs`)
      }
      yield* sql.withTransaction(sql.unsafe(seedSql(dialect, neighbour, theirs[0]!, 0, 10_000)))
    }
    yield* sql.unsafe("ANALYZE")
    const seedSeconds = kept ? Number.NaN : (performance.now() - seedStart) / 1000
    process.stdout.write(`\n[${dialect}] ${kept ? "kept database, analyzed" : `seeded in ${seedSeconds.toFixed(1)} s`}\n`)

    const search = yield* RunSearch
    const base: RunListParams = { sort_by: "created_at", sort_order: "desc", limit: 50 }
    // A cursor in the middle of the list (the newest run before June, about half of the runs from the top).
    const deep = yield* search.list(org, { ...base, limit: 1, end_date: "2026-06-01T00:00:00.000Z" })
    const cases: ReadonlyArray<readonly [string, RunListParams]> = [
      ["newest 50, no filter", base],
      ["a page deep in the list (keyset cursor)", { ...base, cursor: deep.next_cursor ?? undefined }],
      ["one agent", { ...base, workflow_id: WorkflowId.make(agents[2]!) }],
      ["one campaign, completed", { ...base, campaign_id: CampaignId.make(17), status: "completed" }],
      ["in progress (1%)", { ...base, status: "in_progress" }],
      ["two dispositions", { ...base, disposition: ["transferred", "callback"] }],
      ["outcome busy within one week", { ...base, outcome: ["busy"], start_date: "2026-03-01T00:00:00.000Z", end_date: "2026-03-08T00:00:00.000Z" }],
      ["one day", { ...base, start_date: "2026-04-10T00:00:00.000Z", end_date: "2026-04-11T00:00:00.000Z" }],
      ["phone number", { ...base, phone_number: "+14150654321" }],
      ["inbound, agent, 5–6 min", { ...base, call_type: "inbound", workflow_id: WorkflowId.make(agents[1]!), min_duration: 300, max_duration: 360 }],
      ["duration 590–600 s, longest first", { ...base, min_duration: 590, sort_by: "duration", sort_order: "desc" }],
      ["cheapest first", { ...base, sort_by: "cost", sort_order: "asc" }],
      ["cost ≥ $0.17, dearest first", { ...base, min_cost: 0.17, sort_by: "cost", sort_order: "desc" }],
      ["search a rare word (0.01%)", { ...base, q: "zanzibar" }],
      ["search a rare word, one agent", { ...base, q: "zanzibar", workflow_id: WorkflowId.make(agents[0]!) }],
      ["search two words (3%)", { ...base, q: "appointment delivery" }],
      ["search a common word (3%), one agent", { ...base, q: "pharmacy", workflow_id: WorkflowId.make(agents[3]!) }],
      ["search a name in the gathered context (12%)", { ...base, q: "Priya" }]
    ]
    const results: Array<{ name: string; median: number; p95: number; rows: number }> = []
    for (const [name, params] of cases) {
      if (EXPLAIN) yield* explain(dialect, name, search.list(org, params))
      let rows = 0
      for (let i = 0; i < 2; i++) rows = (yield* search.list(org, params)).runs.length
      const times: Array<number> = []
      for (let i = 0; i < REPEAT; i++) {
        const start = performance.now()
        yield* search.list(org, params)
        times.push(performance.now() - start)
      }
      times.sort((a, b) => a - b)
      results.push({ name, median: percentile(times, 50), p95: percentile(times, 95), rows })
      process.stdout.write(`[${dialect}] ${name}: median ${percentile(times, 50).toFixed(1)} ms (${rows} rows)\n`)
    }

    // Export: one agent's runs (a fifth), streamed and dropped; the heap it grew.
    const heapBefore = process.memoryUsage().heapUsed
    let peakHeap = heapBefore
    let bytes = 0
    const exportStart = performance.now()
    yield* search.csv(org, { sort_by: "created_at", sort_order: "desc", workflow_id: WorkflowId.make(agents[4]!) }).pipe(
      Stream.runForEach((chunk) =>
        Effect.sync(() => {
          bytes += chunk.length
          peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)
        })
      )
    )
    const exportSeconds = (performance.now() - exportStart) / 1000
    return {
      dialect,
      seedSeconds,
      results,
      export: { rows: Math.round(RUNS / 5), seconds: exportSeconds, megabytes: bytes / 1e6, heapGrowthMb: (peakHeap - heapBefore) / 1e6 }
    }
  })

const layerFor = (dialect: "sqlite" | "pg", dataDir: string) =>
  RunSearch.Default.pipe(Layer.provideMerge(Repositories.layer), Layer.provideMerge(
    dialect === "pg"
      ? (KEPT_PG !== undefined
        ? Database.layerPg({ url: Redacted.make(KEPT_PG), maxConnections: 4 })
        : Layer.unwrapScoped(Effect.map(Testing.freshPgDatabase, ({ url }) => Database.layerPg({ url: Redacted.make(url), maxConnections: 4 }))))
        .pipe(Layer.orDie)
      : Database.layerSqlite({ filename: KEPT_SQLITE ?? NodePath.join(dataDir, "bench.db") }).pipe(Layer.orDie)
  ))

const main = Effect.gen(function*() {
  const load = NodeOs.loadavg().map((l) => l.toFixed(2)).join(", ")
  const all = []
  for (const dialect of DATABASES) {
    const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-bench-runs-"))
    all.push(yield* Effect.scoped(Layer.build(layerFor(dialect, dataDir)).pipe(Effect.flatMap((context) => Effect.provide(benchDialect(dialect), context)))))
    NodeFs.rmSync(dataDir, { recursive: true, force: true })
  }
  const lines = [
    "# Runs filter and search at 1,000,000 runs (`npm run bench:runs`)",
    "",
    `${RUNS.toLocaleString("en")} runs of one organization (5 agents, 50 campaigns, a year of calls) plus 10,000 of another, ` +
    `seeded by SQL; each query \`RunSearch.list\` (50 runs a page), warm, ${REPEAT} times. ${NodeOs.cpus().length} cores, ` +
    `load average at start ${load}; ${new Date().toISOString().slice(0, 10)}. Target: under ${TARGET_MS} ms.`,
    ""
  ]
  for (const r of all) {
    lines.push(
      `## ${r.dialect === "pg" ? "PostgreSQL" : "SQLite"}`,
      "",
      Number.isNaN(r.seedSeconds)
        ? "A database seeded by an earlier run (kept), ANALYZEd again."
        : `Seeding: ${r.seedSeconds.toFixed(1)} s (with the search index kept as rows arrive, then ANALYZE).`,
      ""
    )
    lines.push("| query | median ms | p95 ms | rows | under target |", "|---|---:|---:|---:|:---:|")
    for (const q of r.results) lines.push(`| ${q.name} | ${q.median.toFixed(1)} | ${q.p95.toFixed(1)} | ${q.rows} | ${q.p95 < TARGET_MS ? "yes" : "**no**"} |`)
    lines.push(
      "",
      `Export of one agent's ${r.export.rows.toLocaleString("en")} runs as CSV: ${r.export.seconds.toFixed(1)} s ` +
        `(${Math.round(r.export.rows / r.export.seconds).toLocaleString("en")} runs/s, ${r.export.megabytes.toFixed(0)} MB), ` +
        `heap grew at most ${r.export.heapGrowthMb.toFixed(0)} MB.`,
      ""
    )
  }
  NodeFs.writeFileSync(NodePath.join(root, "bench", "runs-results.md"), lines.join("\n"))
  process.stdout.write(lines.join("\n") + "\n")
})

Effect.runPromise(main).catch((error) => {
  console.error(error)
  process.exit(1)
})
