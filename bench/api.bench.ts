/**
 * `npm run bench:api` (and the end of `npm run bench`): the HTTP API under load, written to
 * bench/api-results.md. A benchmark, not a test: numbers depend on the machine.
 *
 * The server runs as its own process (`agentline serve`, embedded SQLite), as an operator runs it. Two
 * measurements per endpoint:
 *
 * - **Fixed rate** (wrk2-style): requests are scheduled at a constant rate and each latency is measured
 *   from the moment the request was *due*, not when it was sent, so a stalled server is charged for
 *   the requests it delayed (coordinated omission corrected).
 * - **Maximum throughput**: a closed loop of concurrent connections for a while; compared with a bare
 *   `node:http` server, also in its own process, returning the same JSON.
 *
 *   BENCH_API_RATE (default 1000)      requests per second of the fixed-rate runs
 *   BENCH_API_SECONDS (default 20)     duration of each fixed-rate run
 *   BENCH_API_MAX_SECONDS (default 10) duration of each maximum-throughput run
 *   BENCH_SERVER_NODE_ARGS              Node options for the server process (e.g. --cpu-prof)
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as Http from "node:http"
import * as NodeNet from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const RATE = Number(process.env.BENCH_API_RATE ?? 1000)
const SECONDS = Number(process.env.BENCH_API_SECONDS ?? 20)
const MAX_SECONDS = Number(process.env.BENCH_API_MAX_SECONDS ?? 10)
const CONNECTIONS = 32

const root = NodePath.resolve(import.meta.dirname, "..")
const bin = NodePath.join(root, "packages/http/bin/agentline.js")

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = NodeNet.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as NodeNet.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

const waitForOutput = (child: ChildProcess, marker: string) =>
  new Promise<void>((resolve, reject) => {
    let output = ""
    const timer = setTimeout(() => reject(new Error(`no "${marker}" within 60 s:\n${output}`)), 60_000)
    // Keeps draining the pipes afterwards (a full pipe would stall the server) without keeping the text.
    let found = false
    const check = (data: Buffer) => {
      if (found) return
      output += data
      if (output.includes(marker)) {
        found = true
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on("data", check)
    child.stderr!.on("data", check)
    child.once("exit", () => reject(new Error(`exited early:\n${output}`)))
  })

interface Sample {
  readonly ok: boolean
  readonly latencyMs: number
}

const agent = new Http.Agent({ keepAlive: true, maxSockets: 256 })

const request = (url: URL, method: string, headers: Record<string, string>, body: string | undefined) =>
  new Promise<boolean>((resolve) => {
    const req = Http.request(url, { method, headers, agent }, (res) => {
      res.resume()
      res.once("end", () => resolve(res.statusCode !== undefined && res.statusCode < 400))
    })
    req.once("error", () => resolve(false))
    req.end(body)
  })

/** Open loop: request i is due at start + i / rate; its latency counts from then. */
const fixedRate = async (send: () => Promise<boolean>, rate: number, seconds: number) => {
  const total = Math.round(rate * seconds)
  const samples: Array<Sample> = []
  const inFlight: Array<Promise<void>> = []
  const start = performance.now()
  let next = 0
  while (next < total) {
    const now = performance.now()
    while (next < total && start + (next * 1000) / rate <= now) {
      const due = start + (next * 1000) / rate
      inFlight.push(send().then((ok) => void samples.push({ ok, latencyMs: performance.now() - due })))
      next++
    }
    await new Promise((r) => setImmediate(r))
  }
  await Promise.all(inFlight)
  return samples
}

/** Closed loop: `connections` requests always in flight for `seconds`; completions per second. */
const maxThroughput = async (send: () => Promise<boolean>, connections: number, seconds: number) => {
  const deadline = performance.now() + seconds * 1000
  let completed = 0
  let failed = 0
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < deadline) {
      if (await send()) completed++
      else failed++
    }
  }))
  return { perSecond: completed / seconds, failed }
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const summarize = (samples: ReadonlyArray<Sample>) => {
  const sorted = samples.map((s) => s.latencyMs).sort((a, b) => a - b)
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    errors: samples.filter((s) => !s.ok).length,
    count: samples.length
  }
}

const main = async () => {
  const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-bench-api-"))
  const { DATABASE_URL: _, ...inherited } = process.env
  const env = { ...inherited, AGENTLINE_DATA_DIR: dataDir, AGENTLINE_SECRET_KEY: "bench-secret" }
  const cli = (args: ReadonlyArray<string>) => execFileSync(process.execPath, [bin, ...args], { env, encoding: "utf8" })
  // Two organizations: the writes must not grow the list the reads return.
  const keyOf = (organization: string) => {
    cli(["users", "create", "--email", `bench@${organization}.test`, "--password", "bench-password", "--organization", organization])
    return cli(["api-keys", "create", "--email", `bench@${organization}.test`]).trim().split("\n").at(-1)!
  }
  const key = keyOf("reads")
  const writeKey = keyOf("writes")

  const port = await freePort()
  const server = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean), bin, "serve"], {
    env: { ...env, PORT: String(port), HOST: "127.0.0.1", AGENTLINE_PUBLIC_URL: `http://127.0.0.1:${port}` },
    stdio: ["ignore", "pipe", "pipe"]
  })
  await waitForOutput(server, "Listening on")
  const base = `http://127.0.0.1:${port}`
  const json = { "x-api-key": key, "content-type": "application/json" }
  const definition = JSON.stringify({
    name: "bench",
    workflow_definition: {
      nodes: [
        { id: "s", type: "startCall", position: { x: 0, y: 0 }, data: { name: "s", prompt: "hi" } },
        { id: "e", type: "endCall", position: { x: 0, y: 1 }, data: { name: "e", prompt: "bye" } }
      ],
      edges: [{ id: "x", source: "s", target: "e", data: { label: "end", condition: "done" } }]
    }
  })
  // One agent exists for the read, so it returns a realistic body.
  await request(new URL(`${base}/api/v1/workflow/create/definition`), "POST", json, definition)
  const readUrl = new URL(`${base}/api/v1/workflow/fetch`)
  const read = () => request(readUrl, "GET", { "x-api-key": key }, undefined)
  const writeUrl = new URL(`${base}/api/v1/workflow/create/definition`)
  const writeHeaders = { ...json, "x-api-key": writeKey }
  const write = () => request(writeUrl, "POST", writeHeaders, definition)
  const readBody = await fetch(readUrl, { headers: { "x-api-key": key } }).then((r) => r.text())

  // The bare server: same JSON, nothing else, its own process.
  const barePort = await freePort()
  const bare = spawn(process.execPath, ["-e", `
    const body = ${JSON.stringify(readBody)}
    require("node:http").createServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      res.end(body)
    }).listen(${barePort}, "127.0.0.1", () => console.log("Listening on"))
  `], { stdio: ["ignore", "pipe", "pipe"] })
  await waitForOutput(bare, "Listening on")
  const bareUrl = new URL(`http://127.0.0.1:${barePort}/`)
  const bareRead = () => request(bareUrl, "GET", {}, undefined)

  try {
    // Warm-up: JIT, connection pool, the API key's first check.
    await maxThroughput(read, 8, 2)
    await maxThroughput(bareRead, 8, 1)
    const readFixed = summarize(await fixedRate(read, RATE, SECONDS))
    const writeFixed = summarize(await fixedRate(write, RATE, SECONDS))
    const bareFixed = summarize(await fixedRate(bareRead, RATE, SECONDS))
    const readMax = await maxThroughput(read, CONNECTIONS, MAX_SECONDS)
    const bareMax = await maxThroughput(bareRead, CONNECTIONS, MAX_SECONDS)
    const ratio = readMax.perSecond / bareMax.perSecond

    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim()
    const cpus = NodeOs.cpus()
    const ms = (n: number) => `${n.toFixed(1)} ms`
    const met = (ok: boolean) => (ok ? "met" : "**not met**")
    const lines = [
      "# API benchmark",
      "",
      `Run ${new Date().toISOString()} on commit ${commit}, ${cpus.length} × ${cpus[0]?.model.trim() ?? "cpu"}, Node ${process.version}.`,
      `Server: \`agentline serve\` on embedded SQLite, one API key; load from a separate process over keep-alive connections. Produced by \`npm run bench:api\`.`,
      "",
      `## Fixed rate: ${RATE} requests/s for ${SECONDS} s (latency from when each request was due)`,
      "",
      "| endpoint | requests | errors | p50 | p99 | max |",
      "|---|---|---|---|---|---|",
      ...([["GET /api/v1/workflow/fetch", readFixed], ["POST /api/v1/workflow/create/definition", writeFixed], ["bare node:http (same JSON)", bareFixed]] as const)
        .map(([name, s]) => `| ${name} | ${s.count} | ${s.errors} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.max)} |`),
      "",
      `## Maximum throughput: ${CONNECTIONS} connections, closed loop, ${MAX_SECONDS} s`,
      "",
      "| server | requests/s | failed |",
      "|---|---|---|",
      `| GET /api/v1/workflow/fetch | ${readMax.perSecond.toFixed(0)} | ${readMax.failed} |`,
      `| bare node:http | ${bareMax.perSecond.toFixed(0)} | ${bareMax.failed} |`,
      "",
      "## Targets",
      "",
      `- read p99 < 5 ms at ${RATE} requests/s: ${ms(readFixed.p99)}, ${met(readFixed.p99 < 5)}`,
      `- maximum read throughput ≥ 50 % of bare node:http: ${(ratio * 100).toFixed(0)} %, ${met(ratio >= 0.5)}`,
      ""
    ]
    NodeFs.writeFileSync(NodePath.join(root, "bench/api-results.md"), lines.join("\n"))
    // For `bench/results.md`, which lists every target of the dispatcher and the API together.
    NodeFs.writeFileSync(NodePath.join(root, "bench/api-results.json"), JSON.stringify({
      commit,
      targets: [
        { label: `API: read p99 < 5 ms at ${RATE} requests/s`, value: `${ms(readFixed.p99)} (p50 ${ms(readFixed.p50)})`, met: readFixed.p99 < 5 },
        { label: "API: maximum read throughput ≥ 50 % of bare node:http", value: `${readMax.perSecond.toFixed(0)} vs ${bareMax.perSecond.toFixed(0)} requests/s (${(ratio * 100).toFixed(0)} %)`, met: ratio >= 0.5 }
      ]
    }, null, 2) + "\n")
    console.log(lines.join("\n"))
  } finally {
    server.kill("SIGTERM")
    bare.kill("SIGKILL")
    agent.destroy()
  }
}

await main()
