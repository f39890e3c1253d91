/**
 * docs/grafana-dashboard.json reads only metrics the server declares (Effect metrics in core's
 * `Telemetry.ts`, the server's `observability/Metrics.ts` and the voice runtime's `TurnTelemetry.ts`),
 * so a renamed metric cannot leave a panel silently empty; docs/production.md names every declared
 * metric and span and no other, and covers what a deployment needs (issue 25).
 */
import { describe, expect, it } from "@effect/vitest"
import * as NodeFs from "node:fs"

const read = (path: string) => NodeFs.readFileSync(new URL(path, import.meta.url), "utf8")

const sources = () => [
  read("../../core/src/Telemetry.ts"),
  read("../src/observability/Metrics.ts"),
  read("../../voice/src/TurnTelemetry.ts")
].join("\n")

describe("docs/production.md", () => {
  const doc = read("../../../docs/production.md")

  it("documents every declared metric and span, and names no other", () => {
    const declared = sources()
    const declaredMetrics = new Set([...declared.matchAll(/"((?:agentline|nodejs|process)_[a-z0-9_]+)"/g)].map((m) => m[1]!))
    const declaredSpans = new Set([...declared.matchAll(/"(agentline\.(?:call|dispatch|webhook|voice)[a-z0-9_.]*)"/g)].map((m) => m[1]!))
    expect(declaredMetrics.size).toBeGreaterThan(15)
    expect(declaredSpans.size).toBe(9)
    const documentedMetrics = new Set([...doc.matchAll(/\b((?:agentline|nodejs|process)_[a-z0-9_]+)/g)].map((m) => m[1]!))
    // The documented spans: the first column of the traces table.
    const traces = doc.slice(doc.indexOf("## Traces"), doc.indexOf("## Logs"))
    const documentedSpans = new Set([...traces.matchAll(/^\| `(agentline\.[a-z0-9_.]+)`/gm)].map((m) => m[1]!))
    expect([...declaredMetrics].filter((m) => !documentedMetrics.has(m))).toEqual([])
    expect([...documentedMetrics].filter((m) => !declaredMetrics.has(m))).toEqual([])
    expect([...declaredSpans].filter((s) => !documentedSpans.has(s))).toEqual([])
    expect([...documentedSpans].filter((s) => !declaredSpans.has(s))).toEqual([])
    expect(doc).not.toMatch(/declared, not yet recorded/)
  })

  it("covers HTTPS (Caddy, nginx), a dev tunnel, systemd, PostgreSQL settings and backups, load balancing, metrics and traces", () => {
    const headings = [...doc.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]!)
    for (const heading of ["HTTPS with a reverse proxy", "Caddy", "nginx", "A tunnel for development", "A systemd unit", "PostgreSQL", "Several processes behind a load balancer", "Health, readiness and stopping", "Metrics", "Traces", "Logs"]) {
      expect(headings, heading).toContain(heading)
    }
    const section = (heading: string) => {
      const start = doc.indexOf(`## ${heading}`)
      const end = doc.indexOf("\n## ", start + 3)
      return doc.slice(start, end === -1 ? undefined : end)
    }
    expect(section("PostgreSQL")).toMatch(/\*\*Backups\*\*.*pg_dump/s)
    expect(section("PostgreSQL")).toMatch(/max_connections/)
    expect(section("Several processes behind a load balancer")).toMatch(/sticky/)
    expect(section("A systemd unit")).toMatch(/\[Service\][\s\S]*ExecStart=.*agentline\.js serve[\s\S]*TimeoutStopSec=/)
    expect(section("HTTPS with a reverse proxy")).toMatch(/proxy_set_header Upgrade/)
    expect(section("Traces")).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT/)
    // The probes the Observability process test calls.
    expect(section("Health, readiness and stopping")).toMatch(/`GET \/api\/v1\/health` \(liveness\)[\s\S]*`GET \/api\/v1\/health\/ready` \(readiness\)/)
  })
})

describe("the Grafana dashboard", () => {
  it("queries only declared metrics, through the data source variable", () => {
    const dashboard = JSON.parse(read("../../../docs/grafana-dashboard.json"))
    const declared = sources()
    const exprs: Array<string> = dashboard.panels.flatMap((p: { targets: Array<{ expr: string }> }) => p.targets.map((t) => t.expr))
    expect(exprs.length).toBeGreaterThan(10)
    const names = new Set(exprs.flatMap((e) => [...e.matchAll(/\b((?:agentline|nodejs|process)_[a-z0-9_]+)/g)].map((m) => m[1]!)))
    const unknown = [...names]
      .map((name) => name.replace(/_(bucket|count|sum)$/, ""))
      .filter((name) => !declared.includes(`"${name}"`))
    expect(unknown).toEqual([])
    for (const metric of ["agentline_calls_in_progress", "agentline_call_attempts_total", "agentline_claim_duration_seconds", "agentline_refill_duration_seconds", "agentline_webhook_delivery_lag_seconds", "agentline_webhook_delivery_failures_total", "agentline_http_request_duration_seconds", "agentline_db_pool_connections", "nodejs_eventloop_lag_p99_seconds", "process_resident_memory_bytes", "agentline_turn_latency_seconds", "agentline_frames_late_total"]) {
      expect(exprs.some((e) => e.includes(metric)), metric).toBe(true)
    }
    const ids = dashboard.panels.map((p: { id: number }) => p.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(dashboard.panels.every((p: { datasource: { uid: string } }) => p.datasource.uid === "${datasource}")).toBe(true)
  })
})
