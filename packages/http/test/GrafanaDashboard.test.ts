/**
 * docs/grafana-dashboard.json reads only metrics the server declares (Effect metrics in core's
 * `Telemetry.ts`, the server's `observability/Metrics.ts` and the voice runtime's `TurnTelemetry.ts`),
 * so a renamed metric cannot leave a panel silently empty.
 */
import { describe, expect, it } from "@effect/vitest"
import * as NodeFs from "node:fs"

const read = (path: string) => NodeFs.readFileSync(new URL(path, import.meta.url), "utf8")

describe("the Grafana dashboard", () => {
  it("queries only declared metrics, through the data source variable", () => {
    const dashboard = JSON.parse(read("../../../docs/grafana-dashboard.json"))
    const declared = [
      read("../../core/src/Telemetry.ts"),
      read("../src/observability/Metrics.ts"),
      read("../../voice/src/TurnTelemetry.ts")
    ].join("\n")
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
