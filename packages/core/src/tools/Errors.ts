/** What can go wrong with an organization's tools. */
import { Schema } from "effect"

export class ToolNotFound extends Schema.TaggedError<ToolNotFound>()("ToolNotFound", { toolUuid: Schema.String }) {
  override get message() {
    return `Tool ${this.toolUuid} not found in this organization`
  }
}

/** One field at fault: where in the request body (`["definition", "config", "url"]`), why, and what was sent. */
export const ToolIssue = Schema.Struct({
  loc: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  message: Schema.String,
  input: Schema.Unknown
})
export type ToolIssue = typeof ToolIssue.Type

/** A tool (or a test request) that cannot be accepted: every field at fault. */
export class InvalidTool extends Schema.TaggedError<InvalidTool>()("InvalidTool", { issues: Schema.Array(ToolIssue) }) {
  override get message() {
    return this.issues.map((i) => i.message).join("; ")
  }
}

/** `mcp/refresh` on a tool that is not an MCP server. */
export class NotAnMcpTool extends Schema.TaggedError<NotAnMcpTool>()("NotAnMcpTool", {
  toolUuid: Schema.String,
  category: Schema.String
}) {
  override get message() {
    return `Tool ${this.toolUuid} is an ${this.category} tool; only mcp tools have a server whose tools can be refreshed`
  }
}
