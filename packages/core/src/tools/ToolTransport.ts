/**
 * The port that makes a tool's requests: one HTTP request, and an MCP server's tool list and tool call.
 * The server's adapter (`@agentline/http`'s `NodeToolTransport`) connects only to addresses the
 * outbound rule allows unless `allowPrivate` (names are checked when resolved, as for webhooks), follows
 * no redirect, and reads at most `maxResponseBytes` of an answer. Time limits are the caller's: an
 * interrupted request is abandoned (its connection closed).
 */
import { Context, type Effect, Schema } from "effect"

export interface ToolHttpRequest {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** Null: no body. */
  readonly body: string | null
  readonly allowPrivate: boolean
  readonly maxResponseBytes: number
}

export interface ToolHttpAnswer {
  readonly status: number
  readonly contentType: string | null
  /** The answer's text, cut at `maxResponseBytes`. */
  readonly body: string
  readonly bytes: number
  readonly truncated: boolean
}

export interface McpServerAddress {
  /** The server's Streamable HTTP endpoint. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly allowPrivate: boolean
}

export interface McpToolListing {
  readonly name: string
  readonly description: string | null
  readonly inputSchema: Readonly<Record<string, unknown>>
}

/** An MCP `tools/call` result: its content blocks, structured content, and whether the tool reported an error. */
export interface McpToolAnswer {
  readonly isError: boolean
  readonly content: ReadonlyArray<unknown>
  readonly structuredContent: unknown
  /** The result's size as JSON. */
  readonly bytes: number
}

/** No answer was had: refused, unreachable, a redirect, a broken MCP exchange. */
export class ToolRequestFailed extends Schema.TaggedError<ToolRequestFailed>()("ToolRequestFailed", {
  reason: Schema.String,
  /** `refused`: the outbound rule refused the address the name resolved to. */
  kind: Schema.Literal("refused", "network", "protocol")
}) {
  override get message() {
    return this.reason
  }
}

export class ToolTransport extends Context.Tag("@agentline/core/ToolTransport")<ToolTransport, {
  readonly http: (request: ToolHttpRequest) => Effect.Effect<ToolHttpAnswer, ToolRequestFailed>
  readonly mcpTools: (server: McpServerAddress) => Effect.Effect<ReadonlyArray<McpToolListing>, ToolRequestFailed>
  readonly mcpCall: (server: McpServerAddress, name: string, args: Readonly<Record<string, unknown>>) => Effect.Effect<McpToolAnswer, ToolRequestFailed>
}>() {}
