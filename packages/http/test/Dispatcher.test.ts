/**
 * Calls started over the wire: single calls by agent uuid or trigger path, and test calls, with their
 * statuses. The dispatcher's rules (limits, retries, breaker, windows) are tested in core
 * (`core/test/dispatcher/Dispatcher.test.ts`).
 */
import { triggerPaths, WorkflowDefinition } from "@agentline/core/workflows/WorkflowDefinition"
import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { settle, setupDialing } from "./DispatchHarness.js"
import { decode, issuesOf } from "./Wire.js"

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Dispatcher [${dialect}]`, (it) => {
    it.effect("single calls: 401 without a key, 404 for the wrong kind of id, 409 archived, 429 over the limit", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ limit: 1, simulator: { talk_seconds: 30 } })
        const uuid = setup.agent.workflow_uuid!
        const trigger = decode(WorkflowDefinition, setup.agent.workflow_definition).nodes.find((n) => n.type === "trigger")
        const body = { phone_number: "+1 (415) 555-0100", initial_context: { first_name: "Ada", provider: "spoofed" } }

        expect((yield* call("POST", `/api/v1/public/agent/workflow/${uuid}`, { body })).status).toBe(401)
        expect((yield* call("POST", `/api/v1/public/agent/workflow/${uuid}`, { apiKey: "agl_wrong", body })).status).toBe(401)
        expect((yield* call("POST", `/api/v1/public/agent/workflow/no-such-agent`, { apiKey: setup.apiKey, body })).status).toBe(404)
        expect((yield* call("POST", `/api/v1/public/agent/${uuid}`, { apiKey: setup.apiKey, body })).status).toBe(404)
        expect(trigger).toBeUndefined()
        const badNumber = yield* call("POST", `/api/v1/public/agent/workflow/${uuid}`, { apiKey: setup.apiKey, body: { phone_number: "call me maybe" } })
        expect(badNumber.status).toBe(422)
        expect(badNumber.body.detail[0].loc).toEqual(["body", "phone_number"])

        const placed = yield* call("POST", `/api/v1/public/agent/workflow/${uuid}`, { apiKey: setup.apiKey, body })
        expect(placed.status).toBe(200)
        expect(placed.body).toMatchObject({ status: "initiated" })
        expect(placed.body.workflow_run_name).toMatch(/^WR-API-/)
        const busy = yield* call("POST", `/api/v1/public/agent/workflow/${uuid}`, { apiKey: setup.apiKey, body })
        expect(busy.status).toBe(429)

        for (let i = 0; i < 40; i++) {
          yield* TestClock.adjust(1000)
          yield* settle(5)
        }
        const run = yield* call("GET", `/api/v1/workflow/${setup.agent.id}/runs/${placed.body.workflow_run_id}`, { apiKey: setup.apiKey })
        expect(run.body).toMatchObject({ is_completed: true, definition_id: setup.agent.current_definition_id })
        expect(run.body.initial_context).toMatchObject({ first_name: "Ada", provider: "simulator", phone_number: "+14155550100" })
        expect(run.body.gathered_context.outcome).toBe("completed")
        expect(run.body.cost_info).toEqual({ call_duration_seconds: 30 })

        const again = yield* call("POST", `/api/v1/public/agent/workflow/${uuid}`, { apiKey: setup.apiKey, body })
        expect(again.status).toBe(200)
        yield* call("PUT", `/api/v1/workflow/${setup.agent.id}/status`, { apiKey: setup.apiKey, body: { status: "archived" } })
        for (let i = 0; i < 40; i++) {
          yield* TestClock.adjust(1000)
          yield* settle(5)
        }
        const archived = yield* call("POST", `/api/v1/public/agent/workflow/${uuid}`, { apiKey: setup.apiKey, body })
        expect(archived.status).toBe(409)
        expect(archived.body.detail).toContain("archived")
      }))

    it.effect("test calls (POST /telephony/initiate-call): by agent id, with a login session or an API key; other organizations' agents are 404; unsupported fields refused", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ limit: 5, simulator: { talk_seconds: 1 } })
        const login = yield* call("POST", "/api/v1/auth/login", { body: { email: setup.admin.email, password: "initial-password" } })
        expect(login.status).toBe(200)
        const body = { workflow_id: setup.agent.id, phone_number: "+1 (415) 555-0142" }

        expect((yield* call("POST", "/api/v1/telephony/initiate-call", { body })).status).toBe(401)
        const bySession = yield* call("POST", "/api/v1/telephony/initiate-call", { token: login.body.token, body })
        expect(bySession.status).toBe(200)
        expect(bySession.body.message).toBe(`Call initiated successfully with run name ${bySession.body.workflow_run_name}`)
        // The agent's template variables are the defaults under what the request gives.
        expect((yield* call("PUT", `/api/v1/workflow/${setup.agent.id}`, {
          apiKey: setup.apiKey,
          body: { template_context_variables: { first_name: "Default", city: "Paris" } }
        })).status).toBe(200)
        const byKey = yield* call("POST", "/api/v1/telephony/initiate-call", {
          apiKey: setup.apiKey,
          body: { ...body, phone_number: "+14155550143", initial_context: { first_name: "Grace" } }
        })
        expect(byKey.status).toBe(200)
        for (let i = 0; i < 10; i++) {
          yield* TestClock.adjust(1000)
          yield* settle(5)
        }
        const run = yield* call("GET", `/api/v1/workflow/${setup.agent.id}/runs/${bySession.body.workflow_run_id}`, { apiKey: setup.apiKey })
        expect(run.body.initial_context).toMatchObject({ phone_number: "+14155550142", agent_identifier_type: "workflow_id", trigger_mode: "test" })
        expect(run.body.gathered_context.outcome).toBe("completed")
        const byKeyRun = yield* call("GET", `/api/v1/workflow/${setup.agent.id}/runs/${byKey.body.workflow_run_id}`, { apiKey: setup.apiKey })
        expect(byKeyRun.body.initial_context).toMatchObject({ first_name: "Grace", city: "Paris", phone_number: "+14155550143" })

        const other = yield* seedOrganization()
        const foreign = yield* call("POST", "/api/v1/telephony/initiate-call", { apiKey: other.apiKey, body })
        expect(foreign.status).toBe(404)
        const refused = yield* call("POST", "/api/v1/telephony/initiate-call", {
          apiKey: setup.apiKey,
          body: { ...body, workflow_run_id: 7, from_phone_number_id: 3 }
        })
        expect(refused.status).toBe(422)
        expect(issuesOf(refused.body).map((d) => [d.loc.at(-1), d.msg])).toEqual([
          ["workflow_run_id", "workflow_run_id is not supported: a test call always starts a new run"],
          ["from_phone_number_id", "from_phone_number_id is not supported: the configuration's caller IDs are used in turn"]
        ])
      }))

    it.effect("a trigger path starts its agent; a workflow uuid on the trigger route is 404", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const created = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: setup.apiKey,
          body: {
            name: "Triggered",
            workflow_definition: {
              ...setupTriggerDefinition(),
              nodes: [...setupTriggerDefinition().nodes]
            }
          }
        })
        expect(created.status).toBe(200)
        const [path] = triggerPaths(decode(WorkflowDefinition, created.body.workflow_definition))
        const byTrigger = yield* call("POST", `/api/v1/public/agent/${path}`, { apiKey: setup.apiKey, body: { phone_number: "+14155550101" } })
        expect(byTrigger.status).toBe(200)
        const wrongRoute = yield* call("POST", `/api/v1/public/agent/workflow/${path}`, { apiKey: setup.apiKey, body: { phone_number: "+14155550101" } })
        expect(wrongRoute.status).toBe(404)
        const uuidOnTrigger = yield* call("POST", `/api/v1/public/agent/${created.body.workflow_uuid}`, { apiKey: setup.apiKey, body: { phone_number: "+14155550101" } })
        expect(uuidOnTrigger.status).toBe(404)
      }))
  })
}

const setupTriggerDefinition = () => ({
  nodes: [
    { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Greet the caller" } },
    { id: "end", type: "endCall", position: { x: 0, y: 100 }, data: { name: "End", prompt: "Say goodbye" } },
    { id: "api", type: "trigger", position: { x: 100, y: 0 }, data: { name: "API" } }
  ],
  edges: [{ id: "e1", source: "start", target: "end", data: { label: "finish", condition: "Done" } }]
})
