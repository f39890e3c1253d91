/**
 * Hostile input gets a 4xx, never a 500 and never a held slot (issue 16, defects 4–6): NUL characters
 * anywhere a string could reach storage, JSON nested thousands deep, bodies larger than their route
 * allows (refused before they are read).
 */
import { MAX_NODES } from "@agentline/core/workflows/DefinitionValidation"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { setupDialing, uploadCsv } from "./DispatchHarness.js"
import { definition } from "./fixtures.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { rawRequest } from "./RawHttp.js"
import { AUTH_BODY_LIMIT, DEFAULT_BODY_LIMIT, MAX_JSON_DEPTH } from "../src/RequestLimits.js"

const NUL = "\u0000"
const locs = (body: { readonly detail: ReadonlyArray<{ readonly loc: ReadonlyArray<string | number> }> }): Array<string> => body.detail.map((issue) => issue.loc.join("."))
const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`NUL characters [${dialect}]`, (it) => {
    it.effect("an agent's name, prompt and template variables: 422 naming every field, nothing stored", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const workflow = definition()
        workflow.nodes[1]!.data.prompt = `Ask about${NUL}{{topic}}`
        const reply = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: { name: `Sales${NUL}bot`, workflow_definition: workflow, template_context_variables: { [`k${NUL}`]: "v", ok: `x${NUL}` } }
        })
        expect(reply.status).toBe(422)
        expect(locs(reply.body).sort()).toEqual([
          "body.name",
          "body.template_context_variables.k\u0000",
          "body.template_context_variables.ok",
          "body.workflow_definition.nodes.1.data.prompt"
        ])
        expect(reply.body.detail[0].type).toBe("string_nul")
        const list = yield* call("GET", "/api/v1/workflow/fetch", { apiKey: org.apiKey })
        expect(list.body).toEqual([])
      }))

    it.effect("an API key name, a configuration name and a phone number label: 422", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const key = yield* call("POST", "/api/v1/user/api-keys", { apiKey: setup.apiKey, body: { name: `ci${NUL}` } })
        expect([key.status, locs(key.body)]).toEqual([422, ["body.name"]])
        const configuration = yield* call("POST", "/api/v1/organizations/telephony-configs", {
          apiKey: setup.apiKey,
          body: { name: `main${NUL}`, config: { provider: "simulator" } }
        })
        expect([configuration.status, locs(configuration.body)]).toEqual([422, ["body.name"]])
        const phone = yield* call("POST", `/api/v1/organizations/telephony-configs/${setup.configurationId}/phone-numbers`, {
          apiKey: setup.apiKey,
          body: { address: "+14155550100", label: `desk${NUL}`, extra_metadata: { [`a${NUL}b`]: 1 } }
        })
        expect([phone.status, locs(phone.body).sort()]).toEqual([422, ["body.extra_metadata.a\u0000b", "body.label"]])
      }))

    it.effect("a single call's initial_context: 422, and no attempt is left holding a slot", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ limit: 1 })
        const sql = yield* SqlClient.SqlClient
        for (let i = 0; i < 3; i++) {
          const reply = yield* call("POST", `/api/v1/public/agent/workflow/${setup.agent.workflow_uuid}`, {
            apiKey: setup.apiKey,
            body: { phone_number: "+14155550100", initial_context: { first_name: `Ada${NUL}`, [`note${NUL}`]: "x", deep: { list: ["ok", NUL] } } }
          })
          expect(reply.status).toBe(422)
          expect(locs(reply.body).sort()).toEqual([
            "body.initial_context.deep.list.1",
            "body.initial_context.first_name",
            "body.initial_context.note\u0000"
          ])
        }
        const attempts = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM call_attempts WHERE organization_id = ${setup.principal.organizationId}`
        expect(Number(attempts[0]!.n)).toBe(0)
        // The organization's one slot is free: a clean call goes through.
        const clean = yield* call("POST", `/api/v1/public/agent/workflow/${setup.agent.workflow_uuid}`, {
          apiKey: setup.apiKey,
          body: { phone_number: "+14155550100", initial_context: { first_name: "Ada" } }
        })
        expect(clean.status).toBe(200)
      }))

    it.effect("a CSV cell: the campaign is refused with 400 naming the row, nothing stored", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const sourceId = yield* uploadCsv(setup.principal, `phone_number,name\n+14155550100,Ada\n+14155550101,B${NUL}ob\n`)
        const reply = yield* call("POST", "/api/v1/campaign/create", {
          apiKey: setup.apiKey,
          body: { name: "NUL", workflow_id: setup.agent.id, source_type: "csv", source_id: sourceId }
        })
        expect(reply.status).toBe(400)
        expect(reply.body.detail).toContain("NUL characters (\\u0000) in rows: 3.")
        expect((yield* call("GET", "/api/v1/campaign/", { apiKey: setup.apiKey })).body.total_count).toBe(0)
      }))

    it.effect("login, the path and the query: 422 before any lookup", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const login = yield* call("POST", "/api/v1/auth/login", { body: { email: `a${NUL}@x.test`, password: "p" } })
        expect([login.status, locs(login.body)]).toEqual([422, ["body.email"]])
        const path = yield* call("POST", "/api/v1/public/agent/a%00b", { apiKey: org.apiKey, body: { phone_number: "+14155550100" } })
        expect([path.status, locs(path.body)]).toEqual([422, ["path"]])
        const query = yield* call("GET", "/api/v1/workflow/fetch?status=%00", { apiKey: org.apiKey })
        expect([query.status, locs(query.body)]).toEqual([422, ["query.status"]])
      }))

    it.effect("an id beyond 32 bits (found by the random requests on PostgreSQL): 422, not 500", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const callback = yield* call("POST", "/api/v1/telephony/callbacks/simulator/9999999999999", { raw: "{}" })
        expect([callback.status, locs(callback.body)]).toEqual([422, ["path.attempt_id"]])
        const campaign = yield* call("GET", "/api/v1/campaign/2147483648", { apiKey: org.apiKey })
        expect([campaign.status, locs(campaign.body)]).toEqual([422, ["path.campaign_id"]])
        expect((yield* call("GET", "/api/v1/campaign/2147483647", { apiKey: org.apiKey })).status).toBe(404)
      }))
  })
}

layer(TestApp("sqlite"), { timeout: "120 seconds" })("Deep nesting and body sizes", (it) => {
  it.effect(`JSON nested 5,000 deep, also on the unauthenticated login: 422, at most ${MAX_JSON_DEPTH} levels pass`, () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      for (const [path, apiKey] of [["/api/v1/auth/login", undefined], ["/api/v1/workflow/create/definition", org.apiKey]] as const) {
        const reply = yield* call("POST", path, { ...(apiKey ? { apiKey } : {}), raw: `{"name":${nested(5_000)}}` })
        expect(reply.status).toBe(422)
        expect(reply.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_too_deep", ctx: { max_depth: MAX_JSON_DEPTH } })
      }
      const atLimit = yield* call("POST", "/api/v1/workflow/create/definition", {
        apiKey: org.apiKey,
        raw: `{"name":"x","workflow_definition":${JSON.stringify(definition())},"template_context_variables":{"v":${nested(MAX_JSON_DEPTH - 2)}}}`
      })
      expect(atLimit.status).not.toBe(500)
      expect(JSON.stringify(atLimit.body)).not.toContain("json_too_deep")
    }))

  it.effect("a body announced larger than the route allows is refused with 413 before it is read", () =>
    Effect.gen(function*() {
      const reply = yield* rawRequest({
        method: "POST",
        path: "/api/v1/auth/login",
        headers: { "content-type": "application/json", "content-length": 100 * 1024 * 1024 },
        chunks: ["{\"email\":\""]
      })
      expect(reply.status).toBe(413)
      expect(reply.headers.connection).toBe("close")
      expect(reply.body.detail).toContain(`${AUTH_BODY_LIMIT} bytes`)
    }))

  it.effect("a chunked body is read only up to the limit, then refused with 413 while it still arrives", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const piece = "x".repeat(64 * 1024)
      const reply = yield* rawRequest({
        method: "POST",
        path: "/api/v1/user/api-keys",
        headers: { "content-type": "application/json", "x-api-key": org.apiKey, "transfer-encoding": "chunked" },
        chunks: ["{\"name\":\"", ...Array.from({ length: DEFAULT_BODY_LIMIT / piece.length + 2 }, () => piece)]
      })
      expect(reply.status).toBe(413)
      expect(reply.body.detail).toContain(`${DEFAULT_BODY_LIMIT} bytes`)
    }))

  it.effect("an upload URL with a bad signature answers 403 before reading a 100 MB body", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const presigned = yield* call("POST", "/api/v1/storage/presigned-upload-url", {
        apiKey: org.apiKey,
        body: { file_name: "c.csv", file_size: 50 * 1024 * 1024 }
      })
      const url = new URL(presigned.body.upload_url)
      url.searchParams.set("signature", "forged")
      const reply = yield* rawRequest({
        method: "PUT",
        path: url.pathname + url.search,
        headers: { "content-type": "text/csv", "content-length": 100 * 1024 * 1024 },
        chunks: ["phone_number\n"]
      })
      expect(reply.status).toBe(403)
      expect(reply.headers.connection).toBe("close")
    }))

  it.effect("an upload announced larger than its signed size answers 413 before reading; the server maximum too", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const presigned = yield* call("POST", "/api/v1/storage/presigned-upload-url", {
        apiKey: org.apiKey,
        body: { file_name: "c.csv", file_size: 1000 }
      })
      const url = new URL(presigned.body.upload_url)
      const overDeclared = yield* rawRequest({
        method: "PUT",
        path: url.pathname + url.search,
        headers: { "content-type": "text/csv", "content-length": 1001 },
        chunks: ["phone_number\n"]
      })
      expect(overDeclared.status).toBe(413)
      expect(overDeclared.body.detail).toContain("file_size declared")
      const overServer = yield* rawRequest({
        method: "PUT",
        path: url.pathname + url.search,
        headers: { "content-type": "text/csv", "content-length": 200 * 1024 * 1024 },
        chunks: ["phone_number\n"]
      })
      expect(overServer.status).toBe(413)
      // The URL is still good for the real file.
      const put = yield* rawRequest({
        method: "PUT",
        path: url.pathname + url.search,
        headers: { "content-type": "text/csv", "content-length": 26 },
        chunks: ["phone_number\n+14155550100\n"],
        end: true
      })
      expect(put.status).toBe(200)
    }))

  it.effect(`an agent of ${MAX_NODES + 1} nodes: 422 on the nodes limit`, () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const nodes = [
        { id: "start", type: "startCall", data: { name: "Start", prompt: "Hi" } },
        ...Array.from({ length: MAX_NODES }, (_, i) => ({ id: `n${i}`, type: "agentNode", data: { name: `n${i}`, prompt: "p" } }))
      ]
      const reply = yield* call("POST", "/api/v1/workflow/create/definition", {
        apiKey: org.apiKey,
        body: { name: "Huge", workflow_definition: { nodes, edges: [] } }
      })
      expect(reply.status).toBe(422)
      expect(JSON.stringify(reply.body)).toContain(`at most ${MAX_NODES} are allowed`)
    }))
})
