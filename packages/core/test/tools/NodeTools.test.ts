/**
 * The tools a definition's nodes list, checked against the organization's tools: function names the
 * model would confuse (two tools, a tool and a transition, a tool and a built-in), and MCP filters.
 */
import type { ToolDefinition } from "@agentline/api/tools/Tools"
import { describe, expect, it } from "@effect/vitest"
import { listedToolUuids, nodeToolIssues } from "../../src/tools/NodeTools.js"
import type { StoredTool } from "../../src/tools/ToolsRepo.js"
import type { WorkflowDefinition } from "../../src/workflows/WorkflowDefinition.js"

const tool = (uuid: string, name: string, definition: ToolDefinition, status: "active" | "archived" = "active"): StoredTool => ({
  id: 1,
  tool_uuid: uuid,
  organization_id: 1,
  name,
  description: null,
  category: definition.type,
  icon: null,
  icon_color: null,
  status,
  definition,
  created_by: null,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: null
})

const http: ToolDefinition = { schema_version: 1, type: "http_api", config: { method: "GET", url: "https://api.example.com/x" } }
const mcp: ToolDefinition = {
  schema_version: 1,
  type: "mcp",
  config: {
    transport: "streamable_http",
    url: "https://mcp.example.com/mcp",
    tools_filter: [],
    discovered_tools: [
      { name: "lookup", description: null, input_schema: { type: "object" } },
      { name: "book_it", description: null, input_schema: { type: "object" } }
    ]
  }
}

const definition = (data: Record<string, unknown>): WorkflowDefinition => ({
  nodes: [
    { id: "start", type: "startCall", data: { name: "Start", prompt: "Hi", ...data } },
    { id: "end", type: "endCall", data: { name: "End", prompt: "Bye" } }
  ],
  edges: [{ id: "e", source: "start", target: "end", data: { label: "Book it", condition: "The caller wants to book" } }]
})

describe("tools listed by nodes", () => {
  it("every uuid a node lists or filters is looked up once", () => {
    expect(listedToolUuids(definition({ tool_uuids: ["a", "b", "a"], mcp_tool_filters: { c: ["x"] } }))).toEqual(["a", "b", "c"])
    expect(listedToolUuids(definition({}))).toEqual([])
  })

  it("a tool may take neither a transition's name nor a built-in tool's", () => {
    const tools = [tool("t1", "End call", http), tool("t2", "Weather", http), tool("s", "Shop", mcp)]
    const messages = nodeToolIssues(definition({ tool_uuids: ["t1", "t2", "s"] }), tools).map((i) => i.message)
    expect(messages).toEqual([
      "node 'start' tool_uuids: tool 'End call' would be offered to the model as end_call, the name of the built-in tool end_call; rename one of them",
      "node 'start' tool_uuids: book_it of MCP tool 'Shop' would be offered to the model as book_it, the name of the transition 'book_it'; rename one of them"
    ])
    // Choosing the MCP server's other tool only resolves the clash.
    expect(nodeToolIssues(definition({ tool_uuids: ["t2", "s"], mcp_tool_filters: { s: ["lookup"] } }), tools)).toEqual([])
  })

  it("MCP filters: only for an MCP tool the node lists, only names its server listed", () => {
    const tools = [tool("t2", "Weather", http), tool("s", "Shop", mcp), tool("n", "New", { ...mcp, config: { ...mcp.config, discovered_tools: [] } })]
    const issues = nodeToolIssues(definition({ tool_uuids: ["t2", "s", "n"], mcp_tool_filters: { t2: ["a"], s: ["nope"], n: ["a"], x: [] } }), tools)
    expect(issues.map((i) => [i.field, i.message.replace("node 'start' mcp_tool_filters: ", "")])).toEqual([
      ["mcp_tool_filters", "tool 'Weather' (t2) is not an MCP tool; only an MCP tool's server tools can be chosen"],
      ["mcp_tool_filters", "MCP tool 'Shop' has no tool 'nope' (its server lists lookup, book_it)"],
      ["mcp_tool_filters", "MCP tool 'New' has not listed its server's tools yet; refresh it, then choose among them"],
      ["mcp_tool_filters", "'x' is not a tool this step lists in tool_uuids"]
    ])
    expect(issues.every((i) => i.kind === "node" && i.id === "start")).toBe(true)
  })
})
