/**
 * Operators' routes over agents on both databases: count and summary by status, duplicate (new trigger
 * paths, the source untouched), every built-in template becomes a valid agent, a template chosen from a
 * description, the agent's runs as CSV within a date range, and other organizations' agents are 404s.
 */
import { DefinitionId, OrganizationId, WorkflowId } from "@agentline/api/Ids"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { definition } from "./fixtures.js"
import { call, dialects, type Reply, seedOrganization, TestApp } from "./Harness.js"

const ok = (reply: Reply) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body
}

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Workflow operations [${dialect}]`, (it) => {
    it.effect("count, summary and duplicate, per organization", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const other = yield* seedOrganization()
        const apiKey = org.apiKey
        const a = ok(yield* call("POST", "/api/v1/workflow/create/definition", { apiKey, body: { name: "A", workflow_definition: definition() } }))
        const b = ok(yield* call("POST", "/api/v1/workflow/create/definition", { apiKey, body: { name: "B", workflow_definition: definition() } }))
        ok(yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: other.apiKey, body: { name: "X", workflow_definition: definition() } }))
        ok(yield* call("PUT", `/api/v1/workflow/${b.id}/status`, { apiKey, body: { status: "archived" } }))

        expect(ok(yield* call("GET", "/api/v1/workflow/count", { apiKey }))).toEqual({ total: 2, active: 1, archived: 1 })
        expect(ok(yield* call("GET", "/api/v1/workflow/summary", { apiKey })).map((w: Reply["body"]) => w.name).sort()).toEqual(["A", "B"])
        expect(ok(yield* call("GET", "/api/v1/workflow/summary?status=archived", { apiKey }))).toEqual([{ id: b.id, name: "B" }])
        expect((yield* call("GET", "/api/v1/workflow/summary?status=gone", { apiKey })).status).toBe(422)

        // The copy has the latest content (a draft included) and its own trigger path.
        ok(yield* call("PUT", `/api/v1/workflow/${a.id}`, { apiKey, body: { workflow_definition: definition(undefined, "Hi from the draft") } }))
        const copy = ok(yield* call("POST", `/api/v1/workflow/${a.id}/duplicate`, { apiKey }))
        expect(copy).toMatchObject({ name: "A (copy)", version_number: 1, version_status: "published", status: "active" })
        expect(copy.id).not.toBe(a.id)
        const trigger = (w: Reply["body"]) => w.workflow_definition.nodes.find((n: Reply["body"]) => n.type === "trigger").data.trigger_path
        const source = ok(yield* call("GET", `/api/v1/workflow/fetch/${a.id}`, { apiKey }))
        expect(trigger(copy)).toMatch(/^[A-Za-z0-9_-]+$/)
        expect(trigger(copy)).not.toBe(trigger(source))
        expect(copy.workflow_definition.nodes[0].data.greeting).toBe("Hi from the draft")
        expect(ok(yield* call("GET", "/api/v1/workflow/count", { apiKey })).total).toBe(3)

        const foreign = yield* call("POST", `/api/v1/workflow/${a.id}/duplicate`, { apiKey: other.apiKey })
        expect(foreign.status).toBe(404)
        expect(ok(yield* call("GET", "/api/v1/workflow/count", { apiKey: other.apiKey }))).toEqual({ total: 1, active: 1, archived: 0 })
      }))

    it.effect("every built-in template becomes a valid, publishable agent; a description picks the fitting one", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const apiKey = org.apiKey
        const templates = ok(yield* call("GET", "/api/v1/workflow/templates", { apiKey }))
        expect(templates.map((t: Reply["body"]) => t.template_name)).toEqual([
          "Appointment reminder",
          "Lead qualification",
          "Customer survey",
          "Inbound receptionist"
        ])
        for (const template of templates) {
          const agent = ok(yield* call("POST", "/api/v1/workflow/templates/duplicate", {
            apiKey,
            body: { template_id: template.id, workflow_name: `From ${template.template_name}` }
          }))
          expect(agent.name).toBe(`From ${template.template_name}`)
          expect(agent.workflow_definition.nodes.map((n: Reply["body"]) => n.id)).toEqual(template.template_json.nodes.map((n: Reply["body"]) => n.id))
          // Passes the publish checks too.
          const validated = yield* call("POST", `/api/v1/workflow/${agent.id}/validate`, { apiKey })
          expect(validated.status, JSON.stringify(validated.body)).toBe(200)
        }
        expect((yield* call("POST", "/api/v1/workflow/templates/duplicate", { apiKey, body: { template_id: 99, workflow_name: "x" } })).status)
          .toBe(404)

        const survey = ok(yield* call("POST", "/api/v1/workflow/create/template", {
          apiKey,
          body: { call_type: "outbound", use_case: "Customer feedback survey", activity_description: "Ask for an NPS rating after delivery" }
        }))
        expect(survey.name).toBe("Customer feedback survey")
        expect(survey.workflow_definition.nodes[1].data.name).toBe("Questions")
        const reception = ok(yield* call("POST", "/api/v1/workflow/create/template", {
          apiKey,
          body: { call_type: "inbound", use_case: "Front desk", activity_description: "Answer the phone" }
        }))
        expect(reception.workflow_definition.nodes[0].data.name).toBe("Answer")
        expect((yield* call("POST", "/api/v1/workflow/create/template", { apiKey, body: { call_type: "fax", use_case: "", activity_description: "" } })).status)
          .toBe(422)
      }))

    it.effect("an agent's report is the CSV of its runs within the range; another organization's agent is a 404", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const other = yield* seedOrganization()
        const agent = ok(yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: org.apiKey, body: { name: "R", workflow_definition: definition() } }))
        const repo = yield* RunsRepo
        for (const [i, day] of ["2026-05-01", "2026-05-02", "2026-05-03"].entries()) {
          yield* repo.insert({
            organization_id: OrganizationId.make(org.admin.organization_id),
            workflow_id: WorkflowId.make(agent.id),
            campaign_id: null,
            definition_id: DefinitionId.make(agent.current_definition_id),
            name: `WR-${i}`,
            mode: "simulator",
            call_type: "outbound",
            initial_context: { called_number: `+1415555010${i}` },
            gathered_context: null,
            logs: null,
            now: `${day}T12:00:00.000Z`
          })
        }
        const report = yield* call("GET", `/api/v1/workflow/${agent.id}/report?start_date=2026-05-02&end_date=2026-05-03T23:59:59Z`, { apiKey: org.apiKey })
        expect(report.status).toBe(200)
        const rows = (report.body as string).trimEnd().split("\r\n")
        expect(rows[0]!.startsWith("id,created_at,workflow_id")).toBe(true)
        expect(rows.slice(1).map((r) => r.split(",")[5])).toEqual(["WR-2", "WR-1"])
        expect((yield* call("GET", `/api/v1/workflow/${agent.id}/report`, { apiKey: other.apiKey })).status).toBe(404)
      }))
  })
}
