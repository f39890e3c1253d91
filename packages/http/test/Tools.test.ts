/**
 * Organization tools over the API (`/api/v1/tools`, the reference's paths and shapes), on SQLite and
 * PostgreSQL: create, list, get, update, archive and unarchive; 422 naming every field at fault;
 * private targets refused at save; `test` against a local HTTP API (answers, errors, bad arguments, a
 * slow tool on the TestClock); MCP tools against a local MCP server built with the official SDK
 * (catalog at create, refresh, test); and agent nodes listing tools, checked when saved.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { plainDefinition } from "./DispatchHarness.js"
import { call, dialects, type Reply, seedOrganization, TestApp } from "./Harness.js"
import { scoped, startMcpServer, startToolApi } from "../src/testing/ToolServers.js"

const orderStatus = (url: string) => ({
  name: "Order status",
  description: "Looks up an order's delivery status by its id.",
  definition: {
    type: "http_api",
    config: {
      method: "GET",
      url: `${url}/orders/{{order_id}}`,
      parameters: [{ name: "order_id", type: "string", description: "The order's id" }],
      timeout_ms: 3000,
      customMessage: "One moment, I am looking that up."
    }
  }
})

/** One entry of a 422's `detail`. */
interface Detail {
  readonly loc: ReadonlyArray<string>
  readonly msg: string
}
interface Named {
  readonly name: string
  readonly tool_uuid: string
  readonly type: string
}

const locsOf = (reply: Reply): Array<string> => reply.body.detail.map((d: Detail) => d.loc.join("."))

/** An agent whose start node lists `data`'s tools. */
const agentWithTools = (data: Record<string, unknown>) => {
  const definition = plainDefinition()
  return {
    ...definition,
    nodes: definition.nodes.map((node: { readonly type: string; readonly data: object }) => (node.type === "startCall" ? { ...node, data: { ...node.data, ...data } } : node))
  }
}

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Tools [${dialect}]`, (it) => {
    it.effect("created, listed, fetched, updated, archived and unarchived in the reference's shapes; other organizations see none", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const created = yield* call("POST", "/api/v1/tools/", { apiKey: org.apiKey, body: orderStatus("https://api.example.com") })
        expect(created.status).toBe(200)
        const tool = created.body
        expect(tool).toMatchObject({
          name: "Order status",
          description: "Looks up an order's delivery status by its id.",
          category: "http_api",
          icon: "globe",
          icon_color: "#3B82F6",
          status: "active",
          updated_at: null,
          created_by: { id: org.admin.id, provider_id: org.admin.email },
          definition: {
            schema_version: 1,
            type: "http_api",
            config: { method: "GET", url: "https://api.example.com/orders/{{order_id}}", timeout_ms: 3000 }
          }
        })
        expect(tool.tool_uuid).toMatch(/^[0-9a-f-]{36}$/)
        expect(typeof tool.id).toBe("number")

        const list = (query = "") => Effect.map(call("GET", `/api/v1/tools${query}`, { apiKey: org.apiKey }), (r) => r.body.map((t: Named) => t.tool_uuid))
        expect(yield* list()).toEqual([tool.tool_uuid])
        expect(yield* list("?category=mcp")).toEqual([])
        expect(yield* list("?status=archived")).toEqual([])
        expect((yield* call("GET", `/api/v1/tools/${tool.tool_uuid}`, { apiKey: org.apiKey })).body).toEqual(tool)

        const updated = yield* call("PUT", `/api/v1/tools/${tool.tool_uuid}`, {
          apiKey: org.apiKey,
          body: {
            name: "Order lookup",
            definition: { type: "http_api", config: { method: "GET", url: "https://api.example.com/v2/orders/{{id}}", parameters: [{ name: "id", type: "string", description: "id" }] } }
          }
        })
        expect(updated.status).toBe(200)
        expect(updated.body).toMatchObject({ name: "Order lookup", description: tool.description, definition: { config: { url: "https://api.example.com/v2/orders/{{id}}" } } })
        expect(updated.body.updated_at).not.toBeNull()
        const retyped = yield* call("PUT", `/api/v1/tools/${tool.tool_uuid}`, {
          apiKey: org.apiKey,
          body: { definition: { type: "mcp", config: { url: "https://mcp.example.com/mcp" } } }
        })
        expect(retyped.status).toBe(422)
        expect(locsOf(retyped)).toEqual(["body.definition.type"])

        const archived = yield* call("DELETE", `/api/v1/tools/${tool.tool_uuid}`, { apiKey: org.apiKey })
        expect(archived.body).toMatchObject({ success: true })
        expect((yield* call("GET", `/api/v1/tools/${tool.tool_uuid}`, { apiKey: org.apiKey })).body.status).toBe("archived")
        expect(yield* list("?status=archived")).toEqual([tool.tool_uuid])
        expect(yield* list("?status=active")).toEqual([])
        const restored = yield* call("POST", `/api/v1/tools/${tool.tool_uuid}/unarchive`, { apiKey: org.apiKey })
        expect(restored.body.status).toBe("active")

        const other = yield* seedOrganization()
        expect((yield* call("GET", "/api/v1/tools", { apiKey: other.apiKey })).body).toEqual([])
        for (const [method, path] of [["GET", ""], ["PUT", ""], ["DELETE", ""], ["POST", "/unarchive"], ["POST", "/test"], ["POST", "/mcp/refresh"]] as const) {
          const reply = yield* call(method, `/api/v1/tools/${tool.tool_uuid}${path}`, { apiKey: other.apiKey, body: {} })
          expect(reply.status, `${method} ${path}`).toBe(404)
        }
        const refresh = yield* call("POST", `/api/v1/tools/${tool.tool_uuid}/mcp/refresh`, { apiKey: org.apiKey })
        expect(refresh.status).toBe(400)
        expect(refresh.body.detail).toContain("only mcp tools")
      }))

    it.effect("422 names every field at fault: parameters, placeholders, a private or malformed URL, headers, body, credential, recording", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const bad = yield* call("POST", "/api/v1/tools", {
          apiKey: org.apiKey,
          body: {
            name: "Lookup",
            category: "mcp",
            definition: {
              type: "http_api",
              config: {
                method: "GET",
                url: "http://10.0.0.5/orders/{{order}}",
                headers: { "Bad Header": "x", "X-Trace": "{{nope}}" },
                credential_uuid: "no-such-credential",
                parameters: { type: "object", properties: { "order id": { type: "string" } } },
                body_template: { a: 1 },
                customMessageType: "audio"
              }
            }
          }
        })
        expect(bad.status).toBe(422)
        expect(locsOf(bad).sort()).toEqual([
          "body.category",
          "body.definition.config.body_template",
          "body.definition.config.credential_uuid",
          "body.definition.config.customMessageRecordingId",
          "body.definition.config.headers.Bad Header",
          "body.definition.config.headers.X-Trace",
          "body.definition.config.parameters.properties.order id",
          "body.definition.config.url",
          "body.definition.config.url"
        ])
        const messages = bad.body.detail.map((d: Detail) => d.msg).join("\n")
        expect(messages).toContain("10.0.0.5 is a private, loopback or link-local address")
        expect(messages).toContain("AGENTLINE_WEBHOOK_ALLOW_PRIVATE")
        expect(messages).toContain("{{order}}, which names no parameter")
        expect(messages).toContain("body_template is not sent with GET")

        const notSchema = yield* call("POST", "/api/v1/tools", {
          apiKey: org.apiKey,
          body: {
            name: "Lookup",
            definition: {
              type: "http_api",
              config: { method: "POST", url: "https://{{host}}/x", parameters: { type: "object", properties: { a: { type: "strin" } } } }
            }
          }
        })
        expect(locsOf(notSchema)).toEqual([
          "body.definition.config.parameters.properties.a.type",
          "body.definition.config.url",
          "body.definition.config.url"
        ])
        expect(notSchema.body.detail[0].msg).toBe(
          "parameters is not a JSON Schema: /properties/a/type must be equal to one of the allowed values"
        )
        expect(notSchema.body.detail[1].msg).toContain("the scheme, host and port are fixed")
        expect(notSchema.body.detail[2].msg).toContain("url uses {{host}}, which names no parameter (its parameters are a;")

        const wrongShape = yield* call("POST", "/api/v1/tools", {
          apiKey: org.apiKey,
          body: { name: "x", definition: { type: "http_api", config: { method: "FETCH", url: "https://a.example/x", timeout_ms: 0 } } }
        })
        expect(wrongShape.status).toBe(422)
        expect(locsOf(wrongShape)).toEqual(expect.arrayContaining(["body.definition.config.method", "body.definition.config.timeout_ms"]))
        const mcpPrivate = yield* call("POST", "/api/v1/tools", {
          apiKey: org.apiKey,
          body: { name: "Shop", definition: { type: "mcp", config: { url: "http://localhost:9/mcp" } } }
        })
        expect(locsOf(mcpPrivate)).toEqual(["body.definition.config.url"])
        expect((yield* call("GET", "/api/v1/tools", { apiKey: org.apiKey })).body).toEqual([])
      }))
  })

  layer(TestApp(dialect, { webhooks: { allowPrivate: true } }), { timeout: "120 seconds" })(`Tools, calling local servers [${dialect}]`, (it) => {
    it.effect("test: the request made and what the model would get, for an answer, an error status, bad arguments and a slow tool", () =>
      Effect.scoped(Effect.gen(function*() {
        const api = yield* scoped(startToolApi)
        const org = yield* seedOrganization()
        const credential = (yield* call("POST", "/api/v1/credentials", {
          apiKey: org.apiKey,
          body: { name: "Orders", credential_type: "api_key", credential_data: { api_key: "k-123", header_name: "X-Orders-Key" } }
        })).body
        const tool = (yield* call("POST", "/api/v1/tools", {
          apiKey: org.apiKey,
          body: { ...orderStatus(api.url), definition: { ...orderStatus(api.url).definition, config: { ...orderStatus(api.url).definition.config, credential_uuid: credential.uuid } } }
        })).body
        const test = (body: unknown) => call("POST", `/api/v1/tools/${tool.tool_uuid}/test`, { apiKey: org.apiKey, body })

        const ok = yield* test({ llm_params: { order_id: "A17" } })
        expect(ok.status).toBe(200)
        expect(ok.body).toMatchObject({
          status: "success",
          status_code: 200,
          data: { id: "A17", status: "shipped" },
          error: null,
          hint: null,
          request_method: "GET",
          request_url: `${api.url}/orders/A17`,
          request_headers: { "X-Orders-Key": "********" },
          request_body: null,
          request_params: {},
          result_truncated: false
        })
        expect(JSON.parse(ok.body.result)).toEqual({ status: 200, data: { id: "A17", status: "shipped", query: {} } })
        expect(api.received()[0]!.headers["x-orders-key"]).toBe("k-123")
        expect(JSON.stringify(ok.body)).not.toContain("k-123")

        const missing = yield* test({ llm_params: {} })
        expect(missing.body).toMatchObject({ status: "error", status_code: null })
        expect(missing.body.error).toContain("order_id is required")
        expect(missing.body.hint).toContain("llm_params")
        expect(api.received()).toHaveLength(1)

        const failing = (yield* call("POST", "/api/v1/tools", {
          apiKey: org.apiKey,
          body: { name: "Fail", definition: { type: "http_api", config: { method: "POST", url: `${api.url}/fail` } } }
        })).body
        const failed = yield* call("POST", `/api/v1/tools/${failing.tool_uuid}/test`, { apiKey: org.apiKey, body: {} })
        expect(failed.body).toMatchObject({ status: "error", status_code: 500, data: { error: "the booking system is down" }, request_body: {} })

        const slow = (yield* call("POST", "/api/v1/tools", {
          apiKey: org.apiKey,
          body: { name: "Slow", definition: { type: "http_api", config: { method: "GET", url: `${api.url}/slow`, timeout_ms: 4000 } } }
        })).body
        const fiber = yield* Effect.fork(call("POST", `/api/v1/tools/${slow.tool_uuid}/test`, { apiKey: org.apiKey, body: {} }))
        for (let i = 0; i < 400 && !api.received().some((r) => r.url === "/slow"); i++) {
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 5)))
        }
        yield* TestClock.adjust("4 seconds")
        const timedOut = yield* Fiber.join(fiber)
        expect(timedOut.body).toMatchObject({ status: "error", status_code: null, duration_ms: 4000, error: "the tool did not answer within 4 seconds" })
        expect(timedOut.body.hint).toContain("timeout_ms")
      })))

    it.effect("MCP: the server's tools listed when created and on refresh, tested by name; an unreachable server keeps the last list", () =>
      Effect.scoped(Effect.gen(function*() {
        const mcp = yield* scoped(() => startMcpServer())
        const org = yield* seedOrganization()
        const created = yield* call("POST", "/api/v1/tools", {
          apiKey: org.apiKey,
          body: { name: "Shop", description: "The shop's MCP server", definition: { type: "mcp", config: { url: mcp.url, tools_filter: ["lookup_order", "book_slot"] } } }
        })
        expect(created.status).toBe(200)
        const tool = created.body
        expect(tool).toMatchObject({
          category: "mcp",
          definition: { type: "mcp", config: { transport: "streamable_http", url: mcp.url, tools_filter: ["lookup_order", "book_slot"] } }
        })
        expect(tool.definition.config.discovered_tools.map((t: Named) => t.name)).toEqual(["lookup_order", "book_slot", "fail_always"])

        const tested = yield* call("POST", `/api/v1/tools/${tool.tool_uuid}/test`, {
          apiKey: org.apiKey,
          body: { mcp_tool_name: "lookup_order", llm_params: { order_id: "Z9" } }
        })
        expect(tested.body).toMatchObject({ status: "success", data: "Order Z9 shipped on Monday", request_url: mcp.url })
        expect(JSON.parse(tested.body.result)).toEqual({ data: "Order Z9 shipped on Monday" })
        const unnamed = yield* call("POST", `/api/v1/tools/${tool.tool_uuid}/test`, { apiKey: org.apiKey, body: {} })
        expect(unnamed.status).toBe(422)
        expect(unnamed.body.detail[0]).toMatchObject({ loc: ["body", "mcp_tool_name"] })
        expect(unnamed.body.detail[0].msg).toContain("lookup_order, book_slot, fail_always")

        const refreshed = yield* call("POST", `/api/v1/tools/${tool.tool_uuid}/mcp/refresh`, { apiKey: org.apiKey })
        expect(refreshed.body).toMatchObject({ tool_uuid: tool.tool_uuid, error: null })
        expect(refreshed.body.discovered_tools).toHaveLength(3)

        yield* Effect.promise(() => mcp.close())
        const down = yield* call("POST", `/api/v1/tools/${tool.tool_uuid}/mcp/refresh`, { apiKey: org.apiKey })
        expect(down.status).toBe(200)
        expect(down.body.error).toContain("could not be listed")
        expect(down.body.discovered_tools).toHaveLength(3)
        expect((yield* call("GET", `/api/v1/tools/${tool.tool_uuid}`, { apiKey: org.apiKey })).body.definition.config.discovered_tools).toHaveLength(3)
      })))

    it.effect("agent nodes list tools: unknown, archived, same-named and unlisted MCP tools are refused naming the node and the tool", () =>
      Effect.scoped(Effect.gen(function*() {
        const mcp = yield* scoped(() => startMcpServer())
        const org = yield* seedOrganization()
        const create = (body: unknown) => Effect.map(call("POST", "/api/v1/tools", { apiKey: org.apiKey, body }), (r) => r.body)
        const status = yield* create(orderStatus("http://127.0.0.1:9"))
        const twin = yield* create({ ...orderStatus("http://127.0.0.1:9"), name: "order-status" })
        const shop = yield* create({ name: "Shop", definition: { type: "mcp", config: { url: mcp.url, tools_filter: ["lookup_order"] } } })
        const save = (data: Record<string, unknown>) =>
          call("POST", "/api/v1/workflow/create/definition", { apiKey: org.apiKey, body: { name: "With tools", workflow_definition: agentWithTools(data) } })

        const saved = yield* save({ tool_uuids: [status.tool_uuid, shop.tool_uuid], mcp_tool_filters: { [shop.tool_uuid]: ["lookup_order"] } })
        expect(saved.status).toBe(200)
        const startNode = saved.body.workflow_definition.nodes.find((n: Named) => n.type === "startCall")
        expect(startNode.data.tool_uuids).toEqual([status.tool_uuid, shop.tool_uuid])

        yield* call("DELETE", `/api/v1/tools/${status.tool_uuid}`, { apiKey: org.apiKey })
        // A saved agent whose tool was archived since cannot be published again until it is changed.
        const revalidated = yield* call("POST", `/api/v1/workflow/${saved.body.id}/validate`, { apiKey: org.apiKey })
        expect(revalidated.status).toBe(422)
        expect(JSON.stringify(revalidated.body)).toContain(`tool 'Order status' (${status.tool_uuid}) is archived`)
        const refused = yield* save({
          tool_uuids: [status.tool_uuid, "00000000-0000-0000-0000-000000000000", shop.tool_uuid],
          mcp_tool_filters: { [shop.tool_uuid]: ["book_slot", "nope"], [twin.tool_uuid]: ["x"] }
        })
        expect(refused.status).toBe(422)
        const nodeId = startNode.id
        expect(locsOf(refused)).toEqual([
          `body.workflow_definition.nodes.${nodeId}.tool_uuids`,
          `body.workflow_definition.nodes.${nodeId}.tool_uuids`,
          `body.workflow_definition.nodes.${nodeId}.mcp_tool_filters`,
          `body.workflow_definition.nodes.${nodeId}.mcp_tool_filters`,
          `body.workflow_definition.nodes.${nodeId}.mcp_tool_filters`
        ])
        const messages = refused.body.detail.map((d: Detail) => d.msg)
        expect(messages[0]).toBe(`node '${nodeId}' tool_uuids: tool 'Order status' (${status.tool_uuid}) is archived; unarchive it or remove it from this step`)
        expect(messages[1]).toContain("tool '00000000-0000-0000-0000-000000000000' does not exist in this organization")
        expect(messages[2]).toContain("MCP tool 'Shop' does not allow 'book_slot' (its tools_filter)")
        expect(messages[3]).toContain("MCP tool 'Shop' has no tool 'nope'")
        expect(messages[4]).toContain(`'${twin.tool_uuid}' is not a tool this step lists in tool_uuids`)

        yield* call("POST", `/api/v1/tools/${status.tool_uuid}/unarchive`, { apiKey: org.apiKey })
        const clash = yield* save({ tool_uuids: [status.tool_uuid, twin.tool_uuid] })
        expect(clash.status).toBe(422)
        expect(clash.body.detail[0].msg).toContain("tool 'order-status' would be offered to the model as order_status, the name of tool 'Order status'")
      })))
  })
}
