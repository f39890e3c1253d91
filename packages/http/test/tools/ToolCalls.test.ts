/**
 * The tool-call service alone (no API, no conversation): a model's arguments checked, the request
 * rendered and sent to a local HTTP API over the real transport, and what the model is given and what
 * is recorded, for answers, errors, slow tools (TestClock), huge answers, refused addresses, deleted
 * credentials; MCP tools through a local MCP server built with the official SDK; and the functions a
 * node offers. On SQLite (storage is exercised on both databases by Tools.test.ts).
 */
import type { HttpApiConfig, McpToolConfig, ToolDefinition } from "@agentline/api/tools/Tools"
import { TOOL_RESULT_MAX_CHARS } from "@agentline/api/tools/Tools"
import { CredentialsRepo } from "@agentline/core/credentials/CredentialsRepo"
import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import { SecretBox } from "@agentline/core/crypto/SecretBox"
import { ToolCalls } from "@agentline/core/tools/ToolCalls"
import { ToolsRepo, type StoredTool } from "@agentline/core/tools/ToolsRepo"
import { ToolTransport } from "@agentline/core/tools/ToolTransport"
import { UsersRepo } from "@agentline/core/users/UsersRepo"
import { OutboundTargets } from "@agentline/core/OutboundTargets"
import { Repositories, Testing } from "@agentline/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Redacted, TestClock } from "effect"
import * as NodeToolTransport from "../../src/tools/NodeToolTransport.js"
import { scoped, startMcpServer, startToolApi } from "../../src/testing/ToolServers.js"

const servicesWith = (allowPrivate: boolean) =>
  Layer.mergeAll(ToolCalls.Default, NodeToolTransport.layer).pipe(
    Layer.provideMerge(Layer.mergeAll(
      NodeToolTransport.layer,
      SecretBox.layer(Redacted.make("tool-calls-test")),
      OutboundTargets.layer({ allowPrivate })
    )),
    Layer.provideMerge(Repositories.layer),
    Layer.provideMerge(Testing.layerDatabase("sqlite"))
  )

const now = "2026-03-01T10:00:00.000Z"

const seedOrganization = Effect.gen(function*() {
  const organization = yield* (yield* OrganizationsRepo).findOrCreate(`org-${Math.random().toString(36).slice(2)}`, now)
  const user = Option.getOrThrow(yield* (yield* UsersRepo).insert({
    organization_id: organization.id,
    email: `${Math.random().toString(36).slice(2)}@example.com`,
    password_hash: "hash",
    role: "admin",
    must_change_password: false,
    now
  }))
  return { organization: organization.id, user: user.id }
})

/** A tool stored for the organization (so a node can list it). */
const storeTool = (organization: number, user: number, name: string, definition: ToolDefinition) =>
  Effect.flatMap(ToolsRepo, (repo) =>
    repo.insert({
      tool_uuid: `${name}-${Math.random().toString(36).slice(2)}`,
      organization_id: organization,
      name,
      description: `${name} tool`,
      category: definition.type,
      icon: null,
      icon_color: null,
      definition,
      created_by: user,
      created_at: now
    }))

const http = (config: Partial<HttpApiConfig> & Pick<HttpApiConfig, "url">): ToolDefinition => ({
  schema_version: 1,
  type: "http_api",
  config: { method: "GET", ...config }
})

const asHttp = (tool: StoredTool): HttpApiConfig => {
  if (tool.definition.type !== "http_api") throw new Error("not an HTTP tool")
  return tool.definition.config
}
const asMcp = (tool: StoredTool): McpToolConfig => {
  if (tool.definition.type !== "mcp") throw new Error("not an MCP tool")
  return tool.definition.config
}

layer(servicesWith(true), { timeout: "60 seconds" })("The tool-call service", (it) => {
  it.effect("GET: the URL's placeholders percent-encoded, other arguments as the query; the model gets status and JSON", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* scoped(startToolApi)
      const { organization, user } = yield* seedOrganization
      const tool = yield* storeTool(organization, user, "Order status", http({
        url: `${api.url}/orders/{{order_id}}`,
        parameters: [
          { name: "order_id", type: "string", description: "The order's id", required: true },
          { name: "include", type: "string", description: "What else to include", required: false }
        ]
      }))
      const outcome = yield* (yield* ToolCalls).callHttp(tool, asHttp(tool), { order_id: "A/17 b", include: "items" })
      expect(api.received().at(-1)).toMatchObject({ method: "GET", url: "/orders/A%2F17%20b?include=items" })
      expect(JSON.parse(outcome.result)).toEqual({ status: 200, data: { id: "A/17 b", status: "shipped", query: { include: "items" } } })
      expect(outcome.record).toMatchObject({
        tool_uuid: tool.tool_uuid,
        function_name: "order_status",
        category: "http_api",
        arguments: { order_id: "A/17 b", include: "items" },
        status: "success",
        status_code: 200,
        error: null,
        error_kind: null,
        result_truncated: false,
        result_chars: outcome.result.length
      })
      expect(outcome.record.response_bytes).toBeGreaterThan(0)
    })))

  it.effect("invalid arguments: nothing is sent, and the model is told what to correct; quoted numbers are coerced", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* scoped(startToolApi)
      const { organization, user } = yield* seedOrganization
      const tool = yield* storeTool(organization, user, "Book", http({
        method: "POST",
        url: `${api.url}/bookings`,
        parameters: {
          type: "object",
          properties: { day: { type: "string", enum: ["monday", "tuesday"] }, seats: { type: "integer", minimum: 1 } },
          required: ["day", "seats"]
        }
      }))
      const calls = yield* ToolCalls
      const wrong = yield* calls.callHttp(tool, asHttp(tool), { day: "sunday" })
      expect(api.received()).toHaveLength(0)
      expect(wrong.record).toMatchObject({ status: "error", error_kind: "invalid_arguments", latency_ms: 0, status_code: null })
      const said = JSON.parse(wrong.result).error as string
      expect(said).toContain("seats is required")
      expect(said).toContain("day must be equal to one of the allowed values")
      expect(said).toContain("Call the tool again")

      const right = yield* calls.callHttp(tool, asHttp(tool), { day: "monday", seats: "2" })
      expect(JSON.parse(api.received()[0]!.body)).toEqual({ day: "monday", seats: 2 })
      expect(right.record).toMatchObject({ status: "success", status_code: 201 })
    })))

  it.effect("body template, presets from the call's context and a stored credential: sent as rendered, masked in what is shown", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* scoped(startToolApi)
      const { organization, user } = yield* seedOrganization
      const box = yield* SecretBox
      yield* (yield* CredentialsRepo).insert({
        uuid: "cred-booking",
        organization_id: organization,
        name: "Bookings",
        description: null,
        credential_type: "bearer_token",
        sealed_data: box.encrypt(JSON.stringify({ token: "s3cret-token" })),
        created_at: now,
        updated_at: null
      })
      const tool = yield* storeTool(organization, user, "Book", http({
        method: "POST",
        url: `${api.url}/bookings`,
        credential_uuid: "cred-booking",
        headers: { "X-Caller": "{{caller}}" },
        parameters: [{ name: "seats", type: "number", description: "How many", required: true }],
        preset_parameters: [{ name: "caller", type: "string", value_template: "{{initial_context.phone_number}}", required: true }],
        body_template: { booking: { seats: "{{seats}}", note: "for {{caller}}", who: "{{gathered_context.name}}" } }
      }))
      const calls = yield* ToolCalls
      const context = { initial_context: { phone_number: "+14155550100" }, gathered_context: { name: "Ada" } }
      const outcome = yield* calls.callHttp(tool, asHttp(tool), { seats: 3 }, { context })
      const sent = api.received()[0]!
      expect(JSON.parse(sent.body)).toEqual({ booking: { seats: 3, note: "for +14155550100", who: "Ada" } })
      expect(sent.headers).toMatchObject({ authorization: "Bearer s3cret-token", "x-caller": "+14155550100", "content-type": "application/json" })
      expect(outcome.request?.headers).toMatchObject({ Authorization: "********", "X-Caller": "+14155550100" })
      expect(JSON.stringify(outcome)).not.toContain("s3cret-token")

      // Without the call's context the required preset has no value: nothing is sent.
      const missing = yield* calls.callHttp(tool, asHttp(tool), { seats: 3 })
      expect(missing.record).toMatchObject({ status: "error", error_kind: "preset_missing" })
      expect(api.received()).toHaveLength(1)

      // A deleted credential fails the call instead of sending it without authorization.
      yield* (yield* CredentialsRepo).remove(organization, "cred-booking")
      const gone = yield* calls.callHttp(tool, asHttp(tool), { seats: 3 }, { context })
      expect(gone.record).toMatchObject({ status: "error", error_kind: "credential_missing" })
      expect(api.received()).toHaveLength(1)
    })))

  it.effect("an error status, a redirect (not followed) and an unreachable server are results the model can speak about", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* scoped(startToolApi)
      const { organization, user } = yield* seedOrganization
      const calls = yield* ToolCalls
      const failing = yield* storeTool(organization, user, "Fail", http({ url: `${api.url}/fail` }))
      const failed = yield* calls.callHttp(failing, asHttp(failing), {})
      expect(failed.record).toMatchObject({ status: "error", error_kind: "http_status", status_code: 500 })
      expect(JSON.parse(failed.result)).toEqual({
        error: "the tool answered with HTTP status 500",
        status: 500,
        data: { error: "the booking system is down" }
      })

      const redirecting = yield* storeTool(organization, user, "Redirect", http({ url: `${api.url}/redirect` }))
      const redirected = yield* calls.callHttp(redirecting, asHttp(redirecting), {})
      expect(redirected.record).toMatchObject({ status: "error", error_kind: "http_status", status_code: 302 })
      expect(api.received().map((r) => r.url)).toEqual(["/fail", "/redirect"])

      const closed = yield* scoped(startToolApi)
      const port = new URL(closed.url).port
      yield* Effect.promise(() => closed.close())
      const nowhere = yield* storeTool(organization, user, "Nowhere", http({ url: `http://127.0.0.1:${port}/orders/1` }))
      const unreachable = yield* calls.callHttp(nowhere, asHttp(nowhere), {})
      expect(unreachable.record).toMatchObject({ status: "error", error_kind: "network" })
      expect(JSON.parse(unreachable.result).error).toMatch(/^the tool could not be reached: .*ECONNREFUSED/)
    })))

  it.effect("a slow tool: the model is told it did not answer within its timeout, and the request is abandoned", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* scoped(startToolApi)
      const { organization, user } = yield* seedOrganization
      const tool = yield* storeTool(organization, user, "Slow", http({ url: `${api.url}/slow`, timeout_ms: 2500 }))
      const fiber = yield* Effect.fork((yield* ToolCalls).callHttp(tool, asHttp(tool), {}))
      for (let i = 0; i < 200 && api.received().length === 0; i++) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 5)))
      yield* TestClock.adjust("2499 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const outcome = yield* Fiber.join(fiber)
      expect(outcome.record).toMatchObject({ status: "error", error_kind: "timeout", latency_ms: 2500 })
      expect(JSON.parse(outcome.result)).toEqual({ error: "the tool did not answer within 2500 ms" })
    })))

  it.effect("a huge answer: read up to its limit, and the model gets its first characters within TOOL_RESULT_MAX_CHARS", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* scoped(startToolApi)
      const { organization, user } = yield* seedOrganization
      const tool = yield* storeTool(organization, user, "Big", http({ url: `${api.url}/big?chars=50000` }))
      const outcome = yield* (yield* ToolCalls).callHttp(tool, asHttp(tool), {})
      expect(outcome.record).toMatchObject({ status: "success", response_bytes: 50_000, result_truncated: true })
      expect(outcome.result.length).toBeLessThanOrEqual(TOOL_RESULT_MAX_CHARS)
      const given = JSON.parse(outcome.result)
      expect(given.truncated).toContain("50000 characters")
      expect(given.data).toMatch(/^x{7000,}$/)
    })))

  it.effect("MCP: the server's tools listed, called with the credential's header; errors and bad arguments are results", () =>
    Effect.scoped(Effect.gen(function*() {
      const mcp = yield* scoped(() => startMcpServer({ requireAuthorization: "Bearer mcp-key" }))
      const { organization, user } = yield* seedOrganization
      const box = yield* SecretBox
      yield* (yield* CredentialsRepo).insert({
        uuid: "cred-mcp",
        organization_id: organization,
        name: "Shop MCP",
        description: null,
        credential_type: "bearer_token",
        sealed_data: box.encrypt(JSON.stringify({ token: "mcp-key" })),
        created_at: now,
        updated_at: null
      })
      const calls = yield* ToolCalls
      const config: McpToolConfig = { transport: "streamable_http", url: mcp.url, credential_uuid: "cred-mcp", tools_filter: [], discovered_tools: [] }
      const listed = yield* calls.discover(organization, config)
      expect(listed._tag).toBe("Right")
      const catalog = listed._tag === "Right" ? listed.right : []
      expect(catalog.map((t) => t.name)).toEqual(["lookup_order", "book_slot", "fail_always"])
      expect(catalog[0]).toEqual({
        name: "lookup_order",
        description: "Looks up an order by its id",
        input_schema: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] }
      })
      const tool = yield* storeTool(organization, user, "Shop", { schema_version: 1, type: "mcp", config: { ...config, discovered_tools: catalog } })

      const lookup = yield* calls.callMcp(tool, asMcp(tool), "lookup_order", { order_id: "A17" })
      expect(JSON.parse(lookup.result)).toEqual({ data: "Order A17 shipped on Monday" })
      expect(lookup.record).toMatchObject({ status: "success", category: "mcp", mcp_tool_name: "lookup_order", function_name: "lookup_order" })
      expect(mcp.headers().every((h) => h.authorization === "Bearer mcp-key")).toBe(true)

      const booked = yield* calls.callMcp(tool, asMcp(tool), "book_slot", { day: "monday", hour: "9" })
      expect(JSON.parse(booked.result)).toEqual({ data: { booked: true, day: "monday", hour: 9 } })

      const failing = yield* calls.callMcp(tool, asMcp(tool), "fail_always", {})
      expect(failing.record).toMatchObject({ status: "error", error_kind: "tool_error" })
      expect(JSON.parse(failing.result)).toEqual({ error: "the tool reported an error", data: "the warehouse is closed" })

      const requests = mcp.headers().length
      const wrong = yield* calls.callMcp(tool, asMcp(tool), "book_slot", { day: "monday" })
      expect(wrong.record.error_kind).toBe("invalid_arguments")
      expect(JSON.parse(wrong.result).error).toContain("hour is required")
      expect(mcp.headers()).toHaveLength(requests)

      // Without the credential the server refuses the session: a result, not a failure.
      const refused = yield* calls.discover(organization, { ...config, credential_uuid: null })
      expect(refused._tag).toBe("Left")
    })))

  it.effect("a node's functions: active tools in order, an MCP server's tools narrowed by the node; the rest skipped with a reason", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* scoped(startToolApi)
      const mcp = yield* scoped(() => startMcpServer())
      const { organization, user } = yield* seedOrganization
      const calls = yield* ToolCalls
      const config: McpToolConfig = { transport: "streamable_http", url: mcp.url, tools_filter: ["lookup_order", "book_slot"], discovered_tools: [] }
      const catalog = yield* calls.discover(organization, config)
      const shop = yield* storeTool(organization, user, "Shop", {
        schema_version: 1,
        type: "mcp",
        config: { ...config, discovered_tools: catalog._tag === "Right" ? catalog.right : [] }
      })
      const status = yield* storeTool(organization, user, "Order status", http({
        url: `${api.url}/orders/{{order_id}}`,
        parameters: [{ name: "order_id", type: "string", description: "The order's id", required: true }],
        customMessage: "One moment while I look that up."
      }))
      const old = yield* storeTool(organization, user, "Old", http({ url: `${api.url}/orders/1` }))
      yield* (yield* ToolsRepo).update(organization, old.tool_uuid, { status: "archived" }, now)
      const twin = yield* storeTool(organization, user, "order-status", http({ url: `${api.url}/orders/2` }))

      const node = yield* calls.forNode(organization, [status.tool_uuid, shop.tool_uuid, old.tool_uuid, "missing", twin.tool_uuid], {
        [shop.tool_uuid]: ["lookup_order", "fail_always"]
      })
      expect(node.tools.map((t) => t.name)).toEqual(["order_status", "lookup_order"])
      expect(node.tools[0]).toMatchObject({
        description: "Order status tool",
        parameters: { type: "object", properties: { order_id: { type: "string", description: "The order's id" } }, required: ["order_id"] },
        waiting: { _tag: "Text", text: "One moment while I look that up." }
      })
      expect(node.skipped).toEqual([
        { tool_uuid: old.tool_uuid, reason: "the tool Old is archived" },
        { tool_uuid: "missing", reason: "the tool does not exist in this organization" },
        { tool_uuid: twin.tool_uuid, reason: "another tool of this node is already called order_status" }
      ])
      const called = yield* node.tools[0]!.call({ order_id: "B2" })
      expect(JSON.parse(called.result).data).toMatchObject({ id: "B2" })
      const looked = yield* node.tools[1]!.call({ order_id: "B2" })
      expect(JSON.parse(looked.result).data).toBe("Order B2 shipped on Monday")
    })))
})

layer(servicesWith(false), { timeout: "60 seconds" })("The tool-call service, private addresses refused", (it) => {
  it.effect("a private target is refused when called: by the URL's host, and by the address a name resolves to", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* scoped(startToolApi)
      const { organization, user } = yield* seedOrganization
      const tool = yield* storeTool(organization, user, "Status", http({ url: `${api.url}/orders/1` }))
      const outcome = yield* (yield* ToolCalls).callHttp(tool, asHttp(tool), {})
      expect(outcome.record).toMatchObject({ status: "error", error_kind: "refused_target" })
      expect(JSON.parse(outcome.result).error).toContain("127.0.0.1 is a private, loopback or link-local address")

      // The transport itself refuses a name that resolves to a private address (checked at connection).
      const transport = yield* ToolTransport
      const byName = yield* Effect.either(transport.http({
        method: "GET",
        url: `http://localhost:${new URL(api.url).port}/orders/1`,
        headers: {},
        body: null,
        allowPrivate: false,
        maxResponseBytes: 1024
      }))
      expect(byName).toMatchObject({ _tag: "Left", left: { kind: "refused" } })
      expect(api.received()).toHaveLength(0)
    })))
})
