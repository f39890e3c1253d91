/**
 * The tool transport over undici: HTTP tools' requests, and MCP servers through the official
 * TypeScript SDK's client (`@modelcontextprotocol/sdk`, Streamable HTTP) over the same connections.
 *
 * The outbound rule is the webhooks' (`NodeWebhookTransport`): unless the operator allows private
 * addresses, IP literals are checked before connecting and names by the socket's own `lookup`, so the
 * address checked is the address connected to. No redirect is followed (a public server could point at
 * an internal one). An answer is read up to the request's byte limit; an interrupted request is aborted.
 * Each MCP operation opens its own session (initialize, the request, close): nothing is kept between
 * calls, so a server that restarted is simply reached again.
 */
import { isPrivateAddress } from "@agentline/core/OutboundTargets"
import {
  type McpServerAddress,
  type McpToolAnswer,
  type McpToolListing,
  type ToolHttpAnswer,
  type ToolHttpRequest,
  ToolRequestFailed,
  ToolTransport
} from "@agentline/core/tools/ToolTransport"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer } from "effect"
import { Agent, type Dispatcher, fetch as undiciFetch, request as undiciRequest } from "undici"
import { VERSION } from "../ServerConfig.js"
import { guardedLookup } from "../webhooks/NodeWebhookTransport.js"

/** The most tools one MCP server's catalog is read to (pages of `tools/list`). */
const MAX_MCP_TOOLS = 500

const codeOf = (error: unknown): string | undefined => {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as Error & { readonly code?: unknown }).code
    if (typeof code === "string") return code
  }
  return undefined
}

const reasonOf = (error: unknown): string => {
  const messages: Array<string> = []
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (!messages.includes(e.message)) messages.push(e.message)
  }
  return messages.length > 0 ? messages.join(": ") : String(error)
}

const failure = (error: unknown): ToolRequestFailed =>
  new ToolRequestFailed({
    reason: reasonOf(error),
    kind: codeOf(error) === "EWEBHOOKPRIVATE" ? "refused" : error instanceof McpError ? "protocol" : "network"
  })

/** A literal private address is refused before connecting (no lookup happens for it). */
const refusedLiteral = (url: string, allowPrivate: boolean): ToolRequestFailed | undefined => {
  if (allowPrivate) return undefined
  let host: string
  try {
    host = new URL(url).hostname
  } catch {
    return new ToolRequestFailed({ reason: "the url is not an absolute URL", kind: "network" })
  }
  return isPrivateAddress(host) ? new ToolRequestFailed({ reason: `${host} is a private address; refused`, kind: "refused" }) : undefined
}

const readCapped = async (body: AsyncIterable<Uint8Array> & { destroy?: () => void }, max: number) => {
  const chunks: Array<Uint8Array> = []
  let bytes = 0
  let truncated = false
  for await (const chunk of body) {
    if (bytes + chunk.length > max) {
      chunks.push(chunk.subarray(0, max - bytes))
      bytes = max
      truncated = true
      body.destroy?.()
      break
    }
    chunks.push(chunk)
    bytes += chunk.length
  }
  return { text: Buffer.concat(chunks).toString("utf8"), bytes, truncated }
}

/**
 * `fetch` over undici with a dispatcher, for the MCP client. Its messages are JSON text (the only bodies
 * it sends). undici's `Response` is the WHATWG one the client reads, but its TypeScript declaration is
 * undici's own, hence the one cast.
 */
const fetchVia = (dispatcher: Dispatcher): FetchLike => (url, init) => {
  const headers: Record<string, string> = {}
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value
  })
  return undiciFetch(url, {
    ...(init?.method !== undefined ? { method: init.method } : {}),
    headers,
    ...(typeof init?.body === "string" ? { body: init.body } : {}),
    ...(init?.signal != null ? { signal: init.signal } : {}),
    redirect: "error",
    dispatcher
  }) as Promise<Response>
}

export const make = Effect.gen(function*() {
  const guarded = yield* Effect.acquireRelease(
    Effect.sync(() => new Agent({ connect: { lookup: guardedLookup } })),
    (agent) => Effect.promise(() => agent.close())
  )
  const open = yield* Effect.acquireRelease(Effect.sync(() => new Agent()), (agent) => Effect.promise(() => agent.close()))
  const dispatcher = (allowPrivate: boolean): Dispatcher => (allowPrivate ? open : guarded)

  const http = (request: ToolHttpRequest) =>
    Effect.suspend(() => {
      const refused = refusedLiteral(request.url, request.allowPrivate)
      if (refused !== undefined) return Effect.fail(refused)
      return Effect.tryPromise({
        try: async (signal): Promise<ToolHttpAnswer> => {
          const response = await undiciRequest(request.url, {
            method: request.method,
            headers: { ...request.headers },
            body: request.body,
            dispatcher: dispatcher(request.allowPrivate),
            signal
          })
          const read = await readCapped(response.body, request.maxResponseBytes)
          const type = response.headers["content-type"]
          return {
            status: response.statusCode,
            contentType: typeof type === "string" ? type : Array.isArray(type) ? type[0] ?? null : null,
            body: read.text,
            bytes: read.bytes,
            truncated: read.truncated
          }
        },
        catch: failure
      })
    })

  /** An MCP session with the server for `use`, closed afterwards (and when interrupted). */
  const session = <A>(server: McpServerAddress, use: (client: Client, signal: AbortSignal) => Promise<A>) =>
    Effect.suspend(() => {
      const refused = refusedLiteral(server.url, server.allowPrivate)
      if (refused !== undefined) return Effect.fail(refused)
      const via = dispatcher(server.allowPrivate)
      return Effect.acquireUseRelease(
        Effect.sync(() => new Client({ name: "agentline", version: VERSION })),
        (client) =>
          Effect.tryPromise({
            try: async (signal) => {
              const transport = new StreamableHTTPClientTransport(new URL(server.url), {
                requestInit: { headers: { ...server.headers } },
                fetch: fetchVia(via)
              })
              await client.connect(transport, { signal })
              return await use(client, signal)
            },
            catch: failure
          }),
        (client) => Effect.promise(() => client.close().catch(() => undefined))
      )
    })

  const mcpTools = (server: McpServerAddress) =>
    session(server, async (client, signal) => {
      const listed: Array<McpToolListing> = []
      let cursor: string | undefined
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, { signal })
        for (const tool of page.tools) {
          listed.push({ name: tool.name, description: tool.description ?? null, inputSchema: { ...tool.inputSchema } })
        }
        cursor = page.nextCursor
      } while (cursor !== undefined && listed.length < MAX_MCP_TOOLS)
      return listed.slice(0, MAX_MCP_TOOLS)
    })

  const mcpCall = (server: McpServerAddress, name: string, args: Readonly<Record<string, unknown>>) =>
    session(server, async (client, signal): Promise<McpToolAnswer> => {
      const result = await client.callTool({ name, arguments: { ...args } }, undefined, { signal })
      return {
        isError: result.isError === true,
        content: Array.isArray(result.content) ? result.content : [],
        structuredContent: result.structuredContent ?? null,
        bytes: Buffer.byteLength(JSON.stringify(result))
      }
    })

  return ToolTransport.of({ http, mcpTools, mcpCall })
})

export const layer: Layer.Layer<ToolTransport> = Layer.scoped(ToolTransport, make)
