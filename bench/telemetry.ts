/**
 * What the benchmarks of tracing and metrics' overhead (issue 25) share: a receiver of OTLP/HTTP in a
 * process of its own, the server's telemetry as deployed with it on, and bench/telemetry-results.md,
 * where each benchmark writes its own section (`## ...`) and keeps the others'.
 */
import * as Metrics from "@agentline/http/observability/Metrics"
import * as Tracing from "@agentline/http/observability/Tracing"
import { Effect, Layer, Option } from "effect"
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"

/** An OTLP/HTTP receiver on 127.0.0.1:`port` in a process of its own (so that receiving does not load the measured one). */
export const otlpSink = (port: number) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const child = spawn(process.execPath, ["-e", `
        let bytes = 0
        require("node:http").createServer((q, s) => { let n = 0; q.on("data", (c) => n += c.length); q.on("end", () => { bytes += n; s.end("{}") }) })
          .listen(${port}, "127.0.0.1", () => console.log("ready"))
        process.on("SIGTERM", () => { console.log("bytes " + bytes); process.exit(0) })`], { stdio: ["ignore", "pipe", "inherit"] })
      let output = ""
      child.stdout!.on("data", (d) => (output += d))
      await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()))
      return {
        child,
        /** What the receiver took in, once it has stopped (its last line). */
        bytes: () => Number(/bytes (\d+)/.exec(output)?.[1] ?? NaN)
      }
    }),
    ({ child }) => Effect.promise(() => new Promise<void>((resolve) => { child.once("close", () => resolve()); child.kill("SIGTERM") }))
  )

/**
 * Telemetry on, as `agentline serve` has it with `OTEL_EXPORTER_OTLP_ENDPOINT` set: every span exported
 * over OTLP/HTTP to `port` (the server's own `Tracing.layer`: BatchSpanProcessor, OTLPTraceExporter), and
 * `/metrics` rendered every second, as a scraping Prometheus would. (The metrics themselves are Effect
 * metrics, recorded whether or not anyone reads them.)
 */
export const telemetryOn = (port: number) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const metrics = yield* Metrics.PrometheusMetrics
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep("1 second"), metrics.render)))
  })).pipe(
    Layer.provide(Metrics.PrometheusMetrics.Default),
    Layer.provideMerge(Tracing.layer({ endpoint: Option.some(`http://127.0.0.1:${port}/v1/traces`), serviceName: "agentline-bench" }, "bench"))
  )

const RESULTS = new URL("./telemetry-results.md", import.meta.url)
const TITLE = "# Overhead of tracing and metrics (issue 25)"

/**
 * Writes `section` (markdown starting with its `## heading` line) into bench/telemetry-results.md in
 * place of the section of the same heading, or after the others; the other benchmark's section stays.
 */
export const writeSection = (section: string) => {
  const heading = section.split("\n", 1)[0]!
  const existing = NodeFs.existsSync(RESULTS) ? NodeFs.readFileSync(RESULTS, "utf8") : `${TITLE}\n`
  const parts = existing.split(/^(?=## )/m)
  const head = parts[0]!.startsWith("## ") ? `${TITLE}\n\n` : parts.shift()!
  const sections = parts.map((p) => (p.split("\n", 1)[0] === heading ? `${section.trimEnd()}\n\n` : p))
  if (!parts.some((p) => p.split("\n", 1)[0] === heading)) sections.push(`${section.trimEnd()}\n\n`)
  NodeFs.writeFileSync(RESULTS, `${head.trimEnd()}\n\n${sections.join("").trimEnd()}\n`)
}
