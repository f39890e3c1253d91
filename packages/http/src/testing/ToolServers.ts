/**
 * Local servers for tool tests and benchmarks, on 127.0.0.1: an HTTP API a tool calls (it records every
 * request and answers by path), and an MCP server built with the official SDK (Streamable HTTP, one
 * stateless session per request, as the SDK's examples do). Test fixtures, not for production.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"

export interface ReceivedRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export interface ToolApi {
  /** e.g. `http://127.0.0.1:41234` */
  readonly url: string
  readonly received: () => ReadonlyArray<ReceivedRequest>
  readonly close: () => Promise<void>
}

const listen = (server: NodeHttp.Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))
  )

const closing = (server: NodeHttp.Server) => () =>
  new Promise<void>((done) => {
    server.closeAllConnections()
    server.close(() => done())
  })

/**
 * The HTTP API: `GET /orders/{id}` answers the order as JSON (with the query it got), `POST /bookings`
 * echoes the JSON body with 201, `/fail` is a 500, `/slow` never answers, `/big?chars=n` answers `n`
 * characters of text, `/redirect` is a 302 to `/orders/1`.
 */
export const startToolApi = (): Promise<ToolApi> => {
  const received: Array<ReceivedRequest> = []
  const server = NodeHttp.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      received.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body
      })
      const url = new URL(req.url ?? "/", "http://x")
      const json = (status: number, value: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value))
      const order = /^\/orders\/([^/]+)$/.exec(url.pathname)
      if (order !== null) return json(200, { id: decodeURIComponent(order[1]!), status: "shipped", query: Object.fromEntries(url.searchParams) })
      if (url.pathname === "/bookings") return json(201, { booked: true, request: body === "" ? null : JSON.parse(body) })
      if (url.pathname === "/fail") return json(500, { error: "the booking system is down" })
      if (url.pathname === "/slow") return // never answers
      if (url.pathname === "/big") return res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(Number(url.searchParams.get("chars"))))
      if (url.pathname === "/redirect") return res.writeHead(302, { location: "/orders/1" }).end()
      json(404, { error: "no such route" })
    })
  })
  return listen(server).then((url) => ({ url, received: () => received, close: closing(server) }))
}

export interface McpTestServer {
  /** The Streamable HTTP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string
  /** The headers of every HTTP request the server got. */
  readonly headers: () => ReadonlyArray<Readonly<Record<string, string>>>
  readonly close: () => Promise<void>
}

/**
 * An MCP server with three tools: `lookup_order` (text), `book_slot` (structured content) and
 * `fail_always` (an error result). With `requireAuthorization`, requests without that header are a 401.
 */
export const startMcpServer = (options: { readonly requireAuthorization?: string } = {}): Promise<McpTestServer> => {
  const headers: Array<Readonly<Record<string, string>>> = []
  const mcp = () => {
    const server = new Server({ name: "test-shop", version: "1.0.0" }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        {
          name: "lookup_order",
          description: "Looks up an order by its id",
          inputSchema: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] }
        },
        {
          name: "book_slot",
          description: "Books a delivery slot",
          inputSchema: { type: "object", properties: { day: { type: "string" }, hour: { type: "number" } }, required: ["day", "hour"] }
        },
        { name: "fail_always", description: "Always fails", inputSchema: { type: "object", properties: {} } }
      ]
    }))
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const args = request.params.arguments ?? {}
      switch (request.params.name) {
        case "lookup_order":
          return { content: [{ type: "text", text: `Order ${String(args.order_id)} shipped on Monday` }] }
        case "book_slot":
          return {
            content: [{ type: "text", text: "booked" }],
            structuredContent: { booked: true, day: args.day, hour: args.hour }
          }
        default:
          return { content: [{ type: "text", text: "the warehouse is closed" }], isError: true }
      }
    })
    return server
  }
  const http = NodeHttp.createServer((req, res) => {
    headers.push(Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])))
    if (options.requireAuthorization !== undefined && req.headers.authorization !== options.requireAuthorization) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }))
      return
    }
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", async () => {
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
      const server = mcp()
      res.on("close", () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      const text = Buffer.concat(chunks).toString("utf8")
      await transport.handleRequest(req, res, text === "" ? undefined : JSON.parse(text))
    })
  })
  return listen(http).then((base) => ({ url: `${base}/mcp`, headers: () => headers, close: closing(http) }))
}

/** A server for the test's scope. */
export const scoped = <S extends { readonly close: () => Promise<void> }>(start: () => Promise<S>) =>
  Effect.acquireRelease(Effect.promise(start), (s) => Effect.promise(() => s.close()))
