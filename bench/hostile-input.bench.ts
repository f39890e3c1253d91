/**
 * `npm run bench:hostile`: how the server copes with hostile sizes, written to bench/hostile-results.md.
 * A benchmark, not a test: numbers depend on the machine; the tests assert behaviour, this the speed.
 *
 * - definition validation must grow linearly with the number of nodes (issue 16, defect 6): the
 *   checks run beyond the API's limits here, to show the growth;
 * - a CSV import on SQLite must leave the database to other requests (defect 7): the latency of a
 *   query sent again and again during a 100,000-row import, and how fast bad files are refused.
 *
 *   BENCH_IMPORT_ROWS (default 100000)  rows of the import
 */
import { Campaigns } from "@agentline/core/campaigns/Campaigns"
import { MAX_CONTACT_ROWS } from "@agentline/core/campaigns/CsvImport"
import { acting } from "@agentline/core/organizations/Principal"
import { TelephonyConfigs } from "@agentline/core/telephony/TelephonyConfigs"
import { Uploads } from "@agentline/core/uploads/Uploads"
import { Users } from "@agentline/core/users/Users"
import { Workflows } from "@agentline/core/workflows/Workflows"
import { checkDefinition, MAX_EDGES, MAX_NODES } from "@agentline/core/workflows/DefinitionValidation"
import { Database } from "@agentline/sql"
import * as Server from "@agentline/http/Server"
import { ServerConfig } from "@agentline/http/ServerConfig"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer, Redacted, Schema } from "effect"
import { CreateCampaignRequest } from "@agentline/api/campaigns/Campaign"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const lines: Array<string> = []
const out = (line: string) => {
  lines.push(line)
  console.log(line)
}

/** A start node and a chain of agent nodes: every node decoded, every edge checked. */
const chain = (count: number) => ({
  nodes: [
    { id: "n0", type: "startCall", position: { x: 0, y: 0 }, data: { name: "start", prompt: "Greet the caller." } },
    ...Array.from({ length: count - 1 }, (_, i) => ({
      id: `n${i + 1}`,
      type: "agentNode",
      position: { x: i, y: i },
      data: { name: `step ${i + 1}`, prompt: "Talk about the next thing." }
    }))
  ],
  edges: Array.from({ length: count - 1 }, (_, i) => ({
    id: `e${i}`,
    source: `n${i}`,
    target: `n${i + 1}`,
    data: { label: `next ${i}`, condition: "when the caller is ready" }
  }))
})

const definitionValidation = () => {
  out("## Definition validation (linear in nodes)")
  out("")
  out(`API limits: ${MAX_NODES} nodes, ${MAX_EDGES} edges (larger definitions are refused before these checks).`)
  out("")
  out("| nodes (and edges) | validation | µs per node |")
  out("|---|---|---|")
  for (const count of [MAX_NODES, 10_000, 20_000, 40_000]) {
    const definition = chain(count)
    checkDefinition(definition, definition.nodes, definition.edges) // warm-up
    const start = performance.now()
    const { errors } = checkDefinition(definition, definition.nodes, definition.edges)
    const millis = performance.now() - start
    if (errors.length > 0) throw new Error(`the benchmark's definition is invalid: ${JSON.stringify(errors[0])}`)
    out(`| ${count} | ${millis.toFixed(0)} ms | ${((millis * 1000) / count).toFixed(1)} |`)
  }
  out("")
}

const IMPORT_ROWS = Math.min(Number(process.env.BENCH_IMPORT_ROWS ?? MAX_CONTACT_ROWS), MAX_CONTACT_ROWS)
const areas = [212, 213, 310, 312, 404, 415, 512, 617, 646, 702, 713]
const csv = (rows: number, lastRow?: string) => {
  const lines = ["phone_number,first_name"]
  for (let i = 0; i < rows; i++) lines.push(`+1${areas[Math.floor(i / 10_000)]}555${String(i % 10_000).padStart(4, "0")},n${i}`)
  if (lastRow !== undefined) lines.push(lastRow)
  return new TextEncoder().encode(lines.join("\n") + "\n")
}

const turn = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN

const importOnSqlite = Effect.gen(function*() {
  const admin = yield* (yield* Users).create({
    email: "bench@import.local", password: "bench-password", role: "admin", organization: { name: "bench-import" }, mustChangePassword: false
  })
  const principal = acting(admin)
  yield* (yield* TelephonyConfigs).create(principal, { name: "bench", is_default_outbound: true, config: { provider: "simulator" } })
  const agent = yield* (yield* Workflows).create(principal, {
    name: "bench",
    workflow_definition: {
      nodes: [{ id: "s", type: "startCall", data: { name: "s", prompt: "hi" } }, { id: "e", type: "endCall", data: { name: "e", prompt: "bye" } }],
      edges: [{ id: "x", source: "s", target: "e", data: { label: "end", condition: "done" } }]
    }
  })
  const uploads = yield* Uploads
  const campaigns = yield* Campaigns
  const sql = yield* SqlClient.SqlClient
  const create = (bytes: Uint8Array) =>
    Effect.flatMap(uploads.store(principal, "bench.csv", bytes), (key) =>
      Effect.flatMap(
        Schema.decodeUnknown(CreateCampaignRequest)({ name: "bench", workflow_id: agent.id, source_type: "csv", source_id: key }).pipe(Effect.orDie),
        (request) => campaigns.create(principal, request)
      ))

  // Another request's query, again and again while the import runs, each after a turn of the event
  // loop (as a request arriving on a socket): the time from wanting a turn to the query's answer.
  const latencies: Array<number> = []
  let importing = true
  const prober = yield* Effect.fork(Effect.gen(function*() {
    while (importing) {
      const start = performance.now()
      yield* turn
      yield* sql`SELECT id FROM organizations WHERE id = ${principal.organizationId}`
      latencies.push(performance.now() - start)
    }
  }))
  const start = performance.now()
  yield* create(csv(IMPORT_ROWS))
  const importSeconds = (performance.now() - start) / 1000
  importing = false
  yield* Fiber.join(prober)
  latencies.sort((a, b) => a - b)

  const refusal = (bytes: Uint8Array) =>
    Effect.gen(function*() {
      const begin = performance.now()
      const exit = yield* Effect.exit(create(bytes))
      if (exit._tag === "Success") throw new Error("the benchmark's bad file was accepted")
      return (performance.now() - begin) / 1000
    })
  const badLast = yield* refusal(csv(IMPORT_ROWS - 1, "not-a-phone,x"))
  const overLimit = yield* refusal(csv(MAX_CONTACT_ROWS + 1))

  out("## CSV import on SQLite (one connection for everything)")
  out("")
  out("| rows | import | queries answered during it | query latency p50 / p99 / max | bad last row refused in | over the row limit refused in |")
  out("|---|---|---|---|---|---|")
  out(`| ${IMPORT_ROWS} | ${importSeconds.toFixed(1)} s | ${latencies.length} | ${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} / ${latencies.at(-1)!.toFixed(1)} ms | ${badLast.toFixed(1)} s | ${overLimit.toFixed(1)} s |`)
  out("")
  out("Before (issue 16, defect 7): one transaction for the whole import, so every other query waited for all of it (50 MB, 1.22 M rows: 60 s).")
  out("")
})

const sqliteApp = (dataDir: string) =>
  Server.ServicesLive.pipe(
    Layer.provide(Server.MigrationsLive),
    Layer.provideMerge(Database.layerSqlite({ filename: NodePath.join(dataDir, "bench.db") }).pipe(Layer.orDie)),
    Layer.provideMerge(ServerConfig.layer({
      port: 0, host: "127.0.0.1", dataDir, publicUrl: "http://127.0.0.1", version: "bench",
      secretKey: Redacted.make("bench-secret"), publicLinkTtlSeconds: 3600,
      maxUploadBytes: 1024 * 1024 * 1024, uploadUrlTtlSeconds: 900
    }))
  )

out("# Hostile input benchmark")
out("")
out(`Run ${new Date().toISOString()} on ${NodeOs.cpus().length} × ${NodeOs.cpus()[0]?.model ?? "cpu"}, Node ${process.version}. Produced by \`npm run bench:hostile\`.`)
out("")
definitionValidation()
const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-bench-"))
await Effect.runPromise(importOnSqlite.pipe(Effect.provide(sqliteApp(dataDir)), Effect.scoped, Effect.orDie))
NodeFs.rmSync(dataDir, { recursive: true, force: true })
NodeFs.writeFileSync(NodePath.join(import.meta.dirname, "hostile-results.md"), lines.join("\n") + "\n")
