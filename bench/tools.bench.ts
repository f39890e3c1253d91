/**
 * `npm run bench:tools`: what the tool-call service adds to a tool's own time, written to
 * bench/tools-results.md. A benchmark, not a test: numbers depend on the machine and its load.
 *
 * - Preparing a call in process (arguments checked against the JSON Schema, presets, the request
 *   rendered), per call.
 * - An HTTP tool over loopback through the service, against the same request made with undici alone.
 * - An MCP tool call through the service (each call opens its own session: initialize, the call,
 *   close), against listing the server's tools, both over loopback.
 *
 *   BENCH_TOOLS_CALLS (default 200)    calls per network measurement
 */
import type { HttpApiConfig, McpToolConfig } from "@agentline/api/tools/Tools"
import { SecretBox } from "@agentline/core/crypto/SecretBox"
import { checkArguments, parametersSchema } from "@agentline/core/tools/ParameterSchemas"
import { ToolCalls } from "@agentline/core/tools/ToolCalls"
import { presetValues, renderRequest } from "@agentline/core/tools/ToolRequests"
import type { StoredTool } from "@agentline/core/tools/ToolsRepo"
import { OutboundTargets } from "@agentline/core/OutboundTargets"
import { startMcpServer, startToolApi } from "@agentline/http/testing/ToolServers"
import * as NodeToolTransport from "@agentline/http/tools/NodeToolTransport"
import { Repositories, Testing } from "@agentline/sql"
import { Effect, Either, Layer, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { request } from "undici"

const CALLS = Number(process.env.BENCH_TOOLS_CALLS ?? 200)
const root = NodePath.resolve(import.meta.dirname, "..")

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
const summary = (samples: Array<number>) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { median: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) }
}
const ms = (x: number) => x.toFixed(2)

/**
 * Runs the measured effects in turn, `n` rounds (after `warmup` more), in one fiber as a conversation
 * runtime would: interleaved, so a change in the machine's load weighs on each the same.
 */
const interleaved = (n: number, warmup: number, runs: ReadonlyArray<Effect.Effect<unknown>>) =>
  Effect.gen(function*() {
    const samples = runs.map((): Array<number> => [])
    for (let i = 0; i < warmup + n; i++) {
      for (const [index, run] of runs.entries()) {
        const start = performance.now()
        yield* run
        if (i >= warmup) samples[index]!.push(performance.now() - start)
      }
    }
    return samples.map(summary)
  })

/** CPU time (user and system, this process: the local servers included) per run of `run`, in ms: load moves it less than wall time. */
const cpuPerCall = (n: number, run: Effect.Effect<unknown>) =>
  Effect.gen(function*() {
    const before = process.cpuUsage()
    for (let i = 0; i < n; i++) yield* run
    const used = process.cpuUsage(before)
    return (used.user + used.system) / 1000 / n
  })

/** One MCP exchange with the SDK's client alone, as the transport makes it (connect, the request, close). */
const bareMcp = async (url: string) => {
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  await client.callTool({ name: "lookup_order", arguments: { order_id: "A17" } })
  await client.close()
}

const config: HttpApiConfig = {
  method: "POST",
  url: "https://api.example.com/orders/{{order_id}}/book",
  headers: { "X-Caller": "{{caller}}" },
  parameters: {
    type: "object",
    properties: { order_id: { type: "string" }, seats: { type: "integer", minimum: 1 }, day: { type: "string", enum: ["mon", "tue"] } },
    required: ["order_id", "seats"]
  },
  preset_parameters: [{ name: "caller", type: "string", value_template: "{{initial_context.phone_number}}", required: true }],
  body_template: { seats: "{{seats}}", day: "{{day}}", caller: "{{caller}}" }
}
const context = { initial_context: { phone_number: "+14155550100" }, gathered_context: {} }

const prepare = () => {
  const schema = parametersSchema(config.parameters)
  const checked = Either.getOrThrow(checkArguments(schema, { order_id: "A17", seats: "2", day: "mon" }))
  const presets = Either.getOrThrow(presetValues(config.preset_parameters ?? [], context))
  return renderRequest(config, { ...checked, ...presets }, context)
}

const main = async () => {
  for (let i = 0; i < 1000; i++) prepare()
  const rounds = 20_000
  const startPrepare = performance.now()
  for (let i = 0; i < rounds; i++) prepare()
  const prepareMicros = ((performance.now() - startPrepare) / rounds) * 1000

  const api = await startToolApi()
  const mcp = await startMcpServer()
  const tool = (definition: StoredTool["definition"]): StoredTool => ({
    id: 1,
    tool_uuid: "bench",
    organization_id: 1,
    name: "Bench",
    description: null,
    category: definition.type,
    icon: null,
    icon_color: null,
    status: "active",
    definition,
    created_by: null,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: null
  })
  const httpConfig: HttpApiConfig = { method: "GET", url: `${api.url}/orders/{{order_id}}`, parameters: [{ name: "order_id", type: "string", description: "", required: true }] }
  const httpTool = tool({ schema_version: 1, type: "http_api", config: httpConfig })
  const mcpConfig: McpToolConfig = { transport: "streamable_http", url: mcp.url, tools_filter: [], discovered_tools: [] }
  const mcpTool = tool({ schema_version: 1, type: "mcp", config: mcpConfig })

  const services = ToolCalls.Default.pipe(
    Layer.provide(Layer.mergeAll(NodeToolTransport.layer, SecretBox.layer(Redacted.make("bench")), OutboundTargets.layer({ allowPrivate: true }))),
    Layer.provide(Repositories.layer),
    Layer.provide(Testing.layerDatabase("sqlite"))
  )
  const bareHttp = Effect.promise(async () => (await request(`${api.url}/orders/A17`)).body.text())
  const bareMcpCall = Effect.promise(() => bareMcp(mcp.url))
  const results = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const calls = yield* ToolCalls
    const viaService = calls.callHttp(httpTool, httpConfig, { order_id: "A17" })
    const mcpCall = calls.callMcp(mcpTool, mcpConfig, "lookup_order", { order_id: "A17" })
    const [http, service] = yield* interleaved(CALLS, 20, [bareHttp, viaService])
    const [mcpBare, mcpService, mcpList] = yield* interleaved(CALLS, 20, [bareMcpCall, mcpCall, calls.discover(1, mcpConfig)])
    const cpu = {
      bare: yield* cpuPerCall(CALLS, bareHttp),
      viaService: yield* cpuPerCall(CALLS, viaService),
      mcpBare: yield* cpuPerCall(CALLS, bareMcpCall),
      mcpCall: yield* cpuPerCall(CALLS, mcpCall)
    }
    return { bare: http!, viaService: service!, mcpBare: mcpBare!, mcpCall: mcpService!, mcpList: mcpList!, cpu }
  }).pipe(Effect.provide(services))))
  await api.close()
  await mcp.close()

  const lines = [
    "# Tool calls",
    "",
    `Measured by \`npm run bench:tools\` on ${NodeOs.cpus().length} cores (${NodeOs.cpus()[0]?.model ?? "unknown CPU"}), ` +
    `${new Date().toISOString().slice(0, 10)}, Node ${process.version}. The machine was shared with other builds: indicative only.`,
    "",
    "| what | median | p95 | CPU per call |",
    "| --- | --- | --- | --- |",
    `| preparing one call in process (arguments checked, presets, request rendered) | | | ${(prepareMicros / 1000).toFixed(3)} ms |`,
    `| HTTP request with undici alone (loopback) | ${ms(results.bare.median)} ms | ${ms(results.bare.p95)} ms | ${ms(results.cpu.bare)} ms |`,
    `| the same as an HTTP tool through the service | ${ms(results.viaService.median)} ms | ${ms(results.viaService.p95)} ms | ${ms(results.cpu.viaService)} ms |`,
    `| MCP tool call with the SDK's client alone (connect, call, close) | ${ms(results.mcpBare.median)} ms | ${ms(results.mcpBare.p95)} ms | ${ms(results.cpu.mcpBare)} ms |`,
    `| MCP tool call through the service (a session per call) | ${ms(results.mcpCall.median)} ms | ${ms(results.mcpCall.p95)} ms | ${ms(results.cpu.mcpCall)} ms |`,
    `| MCP tools/list through the service (a session per call) | ${ms(results.mcpList.median)} ms | ${ms(results.mcpList.p95)} ms | |`,
    "",
    `${CALLS} rounds after 20 warm-up rounds, the measured calls of a group taking turns (so load weighs on each alike);`,
    "the local servers are `@agentline/http/testing/ToolServers`, in the same process (their CPU time is in the last column).",
    "An MCP call opens a session each time (initialize, the initialized notification, the call, close). The SDK's",
    "client alone takes about as long: that time is the SDK's, on both sides (the test server makes a server per",
    "request), not the service's. Keeping one session per conversation is left for when the runtime offers tools."
  ]
  NodeFs.writeFileSync(NodePath.join(root, "bench/tools-results.md"), `${lines.join("\n")}\n`)
  console.log(lines.join("\n"))
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
