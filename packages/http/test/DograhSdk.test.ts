/**
 * The reference's own TypeScript SDK (`@dograh/sdk`, the published package, pinned) against this
 * server, on both databases: its README example unchanged but for the base URL and key (the `Workflow`
 * builder validating every node against `GET /api/v1/node-types`, `saveWorkflow`), `loadWorkflow`
 * back, `testPhoneCall` through the simulator, and the SDK's other methods, including the one this
 * server does not have (docs/sdk.md says which).
 */
import { nodeTypesResponse } from "@agentline/api/workflows/NodeTypes"
import { TestCallResponse } from "@agentline/api/calls/Call"
import { Run } from "@agentline/api/runs/Run"
import { NodeTypesResponse } from "@agentline/api/workflows/NodeSpec"
import { ApiError, DograhClient, SpecMismatchError, ValidationError, Workflow } from "@dograh/sdk"
import { HttpServer } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Effect, Schema, TestClock } from "effect"
import { settle, setupDialing } from "./DispatchHarness.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { decode } from "./Wire.js"

/** The test server's base URL, for a client outside Effect (the SDK uses the global `fetch`). */
const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  if (server.address._tag !== "TcpAddress") throw new Error("the test server listens on TCP")
  return `http://127.0.0.1:${server.address.port}`
})

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)
/** The SDK error a call rejects with (the test fails if it resolves). */
const rejection = (f: () => Promise<unknown>) =>
  Effect.promise(() => f().then(() => expect.unreachable("the call should have failed"), (error: unknown) => error))

/** The API error (a non-2xx answer) a call rejects with. */
const apiError = (f: () => Promise<unknown>) =>
  Effect.map(rejection(f), (error) => {
    if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`)
    return error
  })

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`The reference's TypeScript SDK [${dialect}]`, (it) => {
    it.effect("GET /node-types and /node-types/{name}: the catalog, for any authenticated caller; an unknown name is a 404 that lists the known ones", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        expect((yield* call("GET", "/api/v1/node-types")).status).toBe(401)
        expect((yield* call("GET", "/api/v1/node-types/startCall")).status).toBe(401)
        const list = yield* call("GET", "/api/v1/node-types", { apiKey: org.apiKey })
        expect(list.status).toBe(200)
        // What is served is the declarations' catalog, in the reference's shape (every key present).
        expect(list.body).toEqual(JSON.parse(JSON.stringify(nodeTypesResponse)))
        expect(Schema.decodeUnknownSync(NodeTypesResponse, { onExcessProperty: "error" })(list.body).spec_version).toBe("1.0.0")
        expect(decode(NodeTypesResponse, list.body).node_types.map((n) => n.name)).toEqual(["startCall", "agentNode", "endCall", "transfer", "globalNode", "trigger", "webhook", "qa"])

        const login = yield* call("POST", "/api/v1/auth/login", { body: { email: org.admin.email, password: "initial-password" } })
        const one = yield* call("GET", "/api/v1/node-types/agentNode", { token: login.body.token })
        expect(one).toEqual({ status: 200, body: list.body.node_types[1] })
        const unknown = yield* call("GET", "/api/v1/node-types/tuner", { apiKey: org.apiKey })
        expect(unknown.status).toBe(404)
        expect(unknown.body.detail).toBe(
          "Unknown node type: \"tuner\"; this server has startCall, agentNode, endCall, transfer, globalNode, trigger, webhook, qa (GET /api/v1/node-types lists them)"
        )

        const document = (yield* call("GET", "/api/v1/openapi.json")).body
        expect(document.paths["/api/v1/node-types"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/NodeTypesResponse" })
        expect(document.paths["/api/v1/node-types/{name}"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/NodeSpec" })
        expect(Object.keys(document.paths["/api/v1/node-types/{name}"].get.responses)).toEqual(expect.arrayContaining(["401", "404"]))
        expect(document.components.schemas.PropertySpec.properties.properties).toBeDefined()
      }))

    it.effect("README example: build with the Workflow builder, saveWorkflow, loadWorkflow back unchanged, edit as code, testPhoneCall through the simulator", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ simulator: { talk_seconds: 1 } })
        const client = new DograhClient({ baseUrl: yield* baseUrl, apiKey: setup.apiKey })

        // The README saves into an existing agent: make one with the builder too. (The SDK's own types want
        // the definition spread into a plain object for `createWorkflow`.)
        const first = new Workflow({ client, name: "loan_qualification" })
        yield* promise(() => first.add({ type: "startCall", name: "greeting", prompt: "Greet the caller." }))
        const created = yield* promise(() => client.createWorkflow({ body: { name: first.name, workflow_definition: { ...first.toJson() } } }))
        expect(created).toMatchObject({ name: "loan_qualification", version_number: 1 })

        // The README's example, as published.
        const wf = new Workflow({ client, name: "loan_qualification" })
        const start = yield* promise(() =>
          wf.add({
            type: "startCall",
            name: "greeting",
            prompt: "You are Sarah from Acme Loans. Greet the caller warmly.",
            greeting_type: "text",
            greeting: "Hi {{first_name}}, this is Sarah."
          })
        )
        const qualify = yield* promise(() => wf.add({ type: "agentNode", name: "qualify", prompt: "Ask about loan amount and timeline." }))
        const done = yield* promise(() => wf.add({ type: "endCall", name: "done", prompt: "Thank them." }))
        wf.edge(start, qualify, { label: "interested", condition: "Caller expressed interest." })
        wf.edge(qualify, done, { label: "done", condition: "Qualification complete." })
        const saved = yield* promise(() => client.saveWorkflow(created.id, wf))
        expect(saved).toMatchObject({ id: created.id, version_number: 2 })
        // The builder filled in the catalog's defaults; the server keeps exactly what was sent.
        expect(saved.workflow_definition).toEqual(wf.toJson())
        expect(wf.toJson().nodes[0]!.data).toMatchObject({ allow_interrupt: false, add_global_prompt: true, delayed_start: false, greeting_type: "text" })

        const loaded = yield* promise(() => client.loadWorkflow(created.id))
        expect(loaded.name).toBe("loan_qualification")
        expect(loaded.toJson()).toEqual(wf.toJson())

        // "View/edit as code": add to the loaded agent and save it again.
        const persona = yield* promise(() => loaded.add({ type: "globalNode", name: "persona", prompt: "You are calm and brief." }))
        expect(persona.id).toBe("4")
        const hook = yield* promise(() =>
          loaded.add({
            type: "webhook",
            name: "crm",
            endpoint_url: "https://crm.example.com/calls",
            custom_headers: [{ key: "X-Source", value: "sdk" }],
            payload_template: { run: "{{workflow_run_id}}" }
          })
        )
        expect(hook.type).toBe("webhook")
        const third = yield* promise(() => client.saveWorkflow(created.id, loaded))
        expect(third.version_number).toBe(3)
        expect((yield* promise(() => client.getWorkflow(created.id))).workflow_definition).toEqual(loaded.toJson())

        // The catalog catches mistakes at the call site, with this server's node types.
        const typo = yield* rejection(() => wf.add({ type: "agentNode", name: "x", prompt: "y", allow_interupt: true }))
        expect(typo).toBeInstanceOf(ValidationError)
        expect(String(typo)).toContain("allow_interupt")
        const badOption = yield* rejection(() => wf.add({ type: "startCall", name: "s", prompt: "p", greeting_type: "video" }))
        expect(badOption).toBeInstanceOf(ValidationError)
        const missing = yield* rejection(() => wf.add({ type: "endCall", name: "bye" }))
        expect(String(missing)).toContain("required field missing: prompt")
        const foreign = yield* rejection(() => wf.add({ type: "tuner", name: "t" }))
        expect(foreign).toBeInstanceOf(SpecMismatchError)
        // What the builder cannot see (the graph) the server refuses on save, with every problem.
        const broken = new Workflow({ client, name: "broken" })
        const a = yield* promise(() => broken.add({ type: "startCall", name: "a", prompt: "p" }))
        const b = yield* promise(() => broken.add({ type: "endCall", name: "b", prompt: "p" }))
        broken.edge(b, a, { label: "back", condition: "never" })
        const refused = yield* apiError(() => client.saveWorkflow(created.id, broken))
        expect(refused.statusCode).toBe(422)
        expect(refused.body).toMatchObject({ detail: [{ kind: "edge", id: "2-1", field: "target" }, { kind: "edge", id: "2-1", field: "source" }] })

        // A test call of the saved agent, through the organization's simulator configuration.
        const started = Schema.decodeUnknownSync(TestCallResponse)(
          yield* promise(() => client.testPhoneCall({ body: { workflow_id: created.id, phone_number: "+14155550142" } }))
        )
        expect(started.message).toBe(`Call initiated successfully with run name ${started.workflow_run_name}`)
        let run: Run | undefined
        for (let step = 0; step < 60; step++) {
          run = decode(Run, (yield* call("GET", `/api/v1/workflow/${created.id}/runs/${started.workflow_run_id}`, { apiKey: setup.apiKey })).body)
          if (run.is_completed) break
          yield* TestClock.adjust(1000)
          yield* settle(10)
        }
        // A test call runs the latest save, a draft (docs/agents.md): version 3, not the published version 1.
        const latest = (yield* call("GET", `/api/v1/workflow/${created.id}/versions`, { apiKey: setup.apiKey })).body[0]
        expect(latest).toMatchObject({ version_number: 3, status: "draft" })
        expect(third.current_definition_id).toBe(created.current_definition_id)
        expect(run).toMatchObject({ is_completed: true, mode: "simulator", definition_id: latest.id })
        expect(run?.gathered_context?.outcome).toBe("completed")
      }))

    it.effect("the SDK's other methods: the workflow list and lookups, tools, credentials and recordings work; documents answer 404", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const client = new DograhClient({ baseUrl: yield* baseUrl, apiKey: org.apiKey })
        const wf = new Workflow({ client, name: "listed" })
        yield* promise(() => wf.add({ type: "startCall", name: "s", prompt: "Hello" }))
        const created = yield* promise(() => client.createWorkflow({ body: { name: "listed", workflow_definition: { ...wf.toJson() } } }))
        expect((yield* promise(() => client.listWorkflows())).map((w) => w.id)).toEqual([created.id])
        expect((yield* promise(() => client.listWorkflows({ status: "archived" })))).toEqual([])
        expect((yield* promise(() => client.getWorkflow(created.id))).name).toBe("listed")
        const renamed = yield* promise(() => client.updateWorkflow(created.id, { body: { name: "renamed" } }))
        expect(renamed.name).toBe("renamed")
        expect(yield* promise(() => client.listCredentials())).toEqual([])
        expect(yield* promise(() => client.listRecordings())).toEqual({ recordings: [], total: 0 })
        const catalog = yield* promise(() => client.listNodeTypes())
        expect(client.specVersion).toBe("1.0.0")
        expect(catalog.node_types).toHaveLength(8)
        expect(yield* promise(() => client.listTools())).toEqual([])
        const tool = yield* promise(() =>
          client.createTool({
            body: {
              name: "Order status",
              description: "Looks up an order",
              // The SDK's types ask for what the server defaults (category, icon, icon_color, schema_version, timeout_ms).
              category: "http_api",
              icon: "globe",
              icon_color: "#3B82F6",
              definition: {
                schema_version: 1,
                type: "http_api",
                config: {
                  method: "GET",
                  url: "https://api.example.com/orders/{{order_id}}",
                  timeout_ms: 5000,
                  parameters: [{ name: "order_id", type: "string", description: "The order's id", required: true }]
                }
              }
            }
          })
        )
        expect(tool).toMatchObject({ name: "Order status", category: "http_api", status: "active" })
        expect((yield* promise(() => client.listTools())).map((t) => t.tool_uuid)).toEqual([tool.tool_uuid])
        expect((yield* apiError(() => client.listDocuments())).statusCode).toBe(404)
        const unauthenticated = yield* apiError(() => new DograhClient({ baseUrl: client.baseUrl, apiKey: "wrong" }).listNodeTypes())
        expect(unauthenticated.statusCode).toBe(401)
      }))
  })
}
