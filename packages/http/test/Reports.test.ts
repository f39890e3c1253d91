/**
 * Organization reports and usage on both databases: a day's metrics and distributions in a time zone,
 * its runs, the current month's usage, usage runs by page with the reference's filters, the usage CSV,
 * the daily breakdown, and nothing of another organization.
 */
import { DefinitionId, OrganizationId, WorkflowId } from "@agentline/api/Ids"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { expect, layer } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { definition } from "./fixtures.js"
import { call, dialects, type Reply, seedOrganization, TestApp } from "./Harness.js"

const ok = (reply: Reply) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body
}

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Reports and usage [${dialect}]`, (it) => {
    it.effect("daily report, its runs, usage of the month, usage runs and the breakdown", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const other = yield* seedOrganization()
        const apiKey = org.apiKey
        const agent = ok(yield* call("POST", "/api/v1/workflow/create/definition", { apiKey, body: { name: "Daily", workflow_definition: definition() } }))
        const theirs = ok(yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: other.apiKey, body: { name: "T", workflow_definition: definition() } }))
        const repo = yield* RunsRepo
        const seed = (organization: number, workflow: { id: number; current_definition_id: number }, at: string, phone: string, disposition: string, outcome: string, duration: number, cost: number) =>
          Effect.gen(function*() {
            const run = yield* repo.insert({
              organization_id: OrganizationId.make(organization),
              workflow_id: WorkflowId.make(workflow.id),
              campaign_id: null,
              definition_id: DefinitionId.make(workflow.current_definition_id),
              name: `WR-${phone}`,
              mode: "simulator",
              call_type: "outbound",
              initial_context: { called_number: phone },
              gathered_context: null,
              logs: null,
              now: at
            })
            yield* repo.update(run.id, {
              is_completed: true,
              merge: {
                gathered_context: { mapped_call_disposition: disposition, outcome },
                usage_info: { call_duration_seconds: duration },
                cost_info: { total_cost_usd: cost }
              }
            }, at)
            return run
          })
        const o = org.admin.organization_id
        // 2026-11-19 in New York (UTC-5) runs from 05:00Z on the 19th to 04:59:59.999Z on the 20th.
        const a = yield* seed(o, agent, "2026-11-19T06:00:00.000Z", "+14155550001", "confirmed", "completed", 45, 0.01)
        const b = yield* seed(o, agent, "2026-11-20T04:30:00.000Z", "+14155550002", "confirmed", "completed", 200, 0.05)
        yield* seed(o, agent, "2026-11-19T04:00:00.000Z", "+14155550003", "busy", "busy", 0, 0)
        yield* seed(o, agent, "2026-11-20T10:00:00.000Z", "+14155550004", "busy", "busy", 0, 0)
        yield* seed(other.admin.organization_id, theirs, "2026-11-19T12:00:00.000Z", "+14155550009", "confirmed", "completed", 999, 9)

        const daily = ok(yield* call("GET", "/api/v1/organizations/reports/daily?date=2026-11-19&timezone=America/New_York", { apiKey }))
        expect(daily).toEqual({
          date: "2026-11-19",
          timezone: "America/New_York",
          workflow_id: null,
          metrics: { total_runs: 2, completed_runs: 2, in_progress_runs: 0, reached_runs: 2, total_duration_seconds: 245, average_duration_seconds: 123 },
          disposition_distribution: [{ disposition: "confirmed", count: 2, percentage: 100 }],
          call_duration_distribution: [
            { bucket: "0-30", count: 0 },
            { bucket: "30-60", count: 1 },
            { bucket: "60-120", count: 0 },
            { bucket: "120-300", count: 1 },
            { bucket: "300+", count: 0 }
          ]
        })
        const utc = ok(yield* call("GET", "/api/v1/organizations/reports/daily?date=2026-11-19", { apiKey }))
        expect(utc.metrics.total_runs).toBe(2)
        expect(utc.disposition_distribution).toEqual([{ disposition: "busy", count: 1, percentage: 50 }, { disposition: "confirmed", count: 1, percentage: 50 }])
        expect((yield* call("GET", "/api/v1/organizations/reports/daily?date=2026-13-45&timezone=Mars/Olympus", { apiKey })).status).toBe(422)

        const runs = ok(yield* call("GET", "/api/v1/organizations/reports/daily/runs?date=2026-11-19&timezone=America/New_York", { apiKey }))
        expect(runs.map((r: Reply["body"]) => [r.run_id, r.phone_number, r.disposition, r.duration_seconds, r.workflow_name])).toEqual([
          [b.id, "+14155550002", "confirmed", 200, "Daily"],
          [a.id, "+14155550001", "confirmed", 45, "Daily"]
        ])
        expect(ok(yield* call("GET", "/api/v1/organizations/reports/workflows", { apiKey }))).toEqual([{ id: agent.id, name: "Daily" }])

        const usage = ok(yield* call("GET", "/api/v1/organizations/usage/runs?limit=2&page=1&sort_by=duration", { apiKey }))
        expect(usage).toMatchObject({ total_count: 4, page: 1, limit: 2, total_pages: 2, total_duration_seconds: 245, total_dograh_tokens: 6 })
        expect(usage.runs.map((r: Reply["body"]) => r.call_duration_seconds)).toEqual([200, 45])
        expect(usage.runs[0]).toMatchObject({ id: b.id, called_number: "+14155550002", caller_number: null, charge_usd: 0.05, dograh_token_usage: 5 })
        const filters = encodeURIComponent(JSON.stringify([{ attribute: "dispositionCode", type: "multiSelect", value: { codes: ["busy"] } }]))
        const busy = ok(yield* call("GET", `/api/v1/organizations/usage/runs?filters=${filters}`, { apiKey }))
        expect(busy.runs.map((r: Reply["body"]) => r.disposition)).toEqual(["busy", "busy"])
        expect((yield* call("GET", "/api/v1/organizations/usage/runs?filters=not-json", { apiKey })).body).toEqual({ detail: "Invalid filter format" })

        const csv = yield* call("GET", `/api/v1/organizations/usage/runs/report?filters=${filters}`, { apiKey })
        expect(csv.status).toBe(200)
        expect((csv.body as string).trimEnd().split("\r\n")).toHaveLength(3)

        // Usage of the month and per day, on the server's clock: another organization's run made now.
        const now = yield* Clock.currentTimeMillis
        yield* seed(other.admin.organization_id, theirs, new Date(now).toISOString(), "+14155550010", "confirmed", "completed", 90, 0.5)
        const period = ok(yield* call("GET", "/api/v1/organizations/usage/current-period", { apiKey: other.apiKey }))
        const month = new Date(now).toISOString().slice(0, 7)
        expect(period).toMatchObject({ used_dograh_tokens: 50, total_duration_seconds: 90, used_amount_usd: 0.5, currency: "USD", price_per_second_usd: null })
        expect(period.period_start).toBe(`${month}-01T00:00:00.000Z`)
        const breakdown = ok(yield* call("GET", "/api/v1/organizations/usage/daily-breakdown?days=3", { apiKey: other.apiKey }))
        expect(breakdown.breakdown.map((d: Reply["body"]) => d.call_count)).toEqual([0, 0, 1])
        expect(breakdown.breakdown[2]).toEqual({ date: new Date(now).toISOString().slice(0, 10), call_count: 1, minutes: 1.5, cost_usd: 0.5, dograh_tokens: 50 })
        expect(breakdown).toMatchObject({ total_minutes: 1.5, total_cost_usd: 0.5, total_dograh_tokens: 50, currency: "USD" })
        expect((yield* call("GET", "/api/v1/organizations/usage/daily-breakdown?days=31", { apiKey })).status).toBe(422)
      }))
  })
}
