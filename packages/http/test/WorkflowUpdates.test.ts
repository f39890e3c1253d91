/**
 * `PUT /workflow/{id}` (defect 9.4): `null` means "not sent" (the reference's reading), and an update
 * that changes nothing saves no version (no draft), however the stored JSON orders its keys.
 */
import { WorkflowVersion } from "@agentline/api/workflows/Workflow"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { definition } from "./fixtures.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { listOf } from "./Wire.js"

const variables = { first_name: "there", topic: "solar panels" }
const configurations = { max_call_duration: 600, voice: { name: "alloy", speed: 1 } }

const reversedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reversedKeys)
    : value !== null && typeof value === "object"
    ? Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversedKeys(v)]))
    : value

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`Workflow updates [${dialect}]`, (it) => {
    const setup = Effect.gen(function*() {
      const org = yield* seedOrganization()
      const created = yield* call("POST", "/api/v1/workflow/create/definition", {
        apiKey: org.apiKey,
        body: {
          name: "Agent",
          workflow_definition: definition(),
          template_context_variables: variables,
          workflow_configurations: configurations
        }
      })
      expect(created.status).toBe(200)
      const put = (body: unknown) => call("PUT", `/api/v1/workflow/${created.body.id}`, { apiKey: org.apiKey, body })
      const versions = () =>
        Effect.map(call("GET", `/api/v1/workflow/${created.body.id}/versions`, { apiKey: org.apiKey }), (r) => listOf(WorkflowVersion, r.body))
      return { org, agent: created.body, put, versions }
    })

    it.effect("null fields are not sent: nothing is cleared and no version is saved", () =>
      Effect.gen(function*() {
        const { agent, put, versions } = yield* setup
        const reply = yield* put({
          name: null,
          workflow_definition: null,
          template_context_variables: null,
          workflow_configurations: null
        })
        expect(reply.status).toBe(200)
        expect(reply.body).toMatchObject({
          name: "Agent",
          version_number: 1,
          current_definition_id: agent.current_definition_id,
          template_context_variables: variables,
          workflow_configurations: configurations
        })
        expect(reply.body.workflow_definition).toEqual(agent.workflow_definition)

        const renamed = yield* put({ name: "Renamed", template_context_variables: null })
        expect(renamed.body).toMatchObject({ name: "Renamed", version_number: 1, template_context_variables: variables })
        expect(yield* versions()).toHaveLength(1)
      }))

    it.effect("sending back what GET returned, in any key order, saves no version; each change is a draft built on the last", () =>
      Effect.gen(function*() {
        const { agent, org, put, versions } = yield* setup
        const fetched = yield* call("GET", `/api/v1/workflow/fetch/${agent.id}`, { apiKey: org.apiKey })
        const same = yield* put({
          workflow_definition: reversedKeys(fetched.body.workflow_definition),
          template_context_variables: reversedKeys(fetched.body.template_context_variables),
          workflow_configurations: reversedKeys(fetched.body.workflow_configurations)
        })
        expect(same.status).toBe(200)
        expect(same.body.version_number).toBe(1)
        expect(same.body.current_definition_id).toBe(agent.current_definition_id)
        expect(yield* versions()).toHaveLength(1)

        const changed = yield* put({ template_context_variables: { ...variables, topic: "heat pumps" } })
        expect(changed.body).toMatchObject({
          version_number: 2,
          version_status: "draft",
          template_context_variables: { ...variables, topic: "heat pumps" },
          workflow_configurations: configurations
        })
        const cleared = yield* put({ workflow_configurations: {} })
        expect(cleared.body).toMatchObject({
          version_number: 3,
          version_status: "draft",
          workflow_configurations: {},
          template_context_variables: changed.body.template_context_variables
        })
        expect((yield* versions()).map((v) => v.version_number)).toEqual([3, 2, 1])
      }))
  })
}
