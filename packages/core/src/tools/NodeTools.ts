/**
 * The tools an agent definition's nodes list (`tool_uuids`, `mcp_tool_filters`), checked against the
 * organization's tools when the definition is saved (pure): every tool must be an active tool of the
 * organization, an MCP filter must name an MCP tool the node lists and tools its server listed, and no
 * two functions the model is offered at a node may have the same name (nor one of the node's
 * transitions, nor a built-in tool).
 */
import { Effect, Layer } from "effect"
import type { DefinitionIssue } from "../workflows/DefinitionValidation.js"
import { ListedTools } from "../workflows/ListedTools.js"
import { transitionToolName, type WorkflowDefinition } from "../workflows/WorkflowDefinition.js"
import { allowedMcpTools, functionName, mcpFunctionName } from "./ToolCalls.js"
import { type StoredTool, ToolsRepo } from "./ToolsRepo.js"

/**
 * The conversation runtime's own tools at every node (`@agentline/voice`'s `graph/Tools.ts`): a tool
 * of the organization may not take their names, or the model could not tell them apart.
 */
export const BUILT_IN_FUNCTIONS: ReadonlyArray<string> = ["end_call", "extract_variables"]

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const stringsOf = (u: unknown): ReadonlyArray<string> => (Array.isArray(u) ? u.filter((s): s is string => typeof s === "string") : [])

/** The tool uuids every node of `definition` lists, for one lookup. */
export const listedToolUuids = (definition: WorkflowDefinition): ReadonlyArray<string> => [
  ...new Set(definition.nodes.flatMap((node) => [...stringsOf(node.data.tool_uuids), ...Object.keys(isObject(node.data.mcp_tool_filters) ? node.data.mcp_tool_filters : {})]))
]

/** Every problem with the tools `definition`'s nodes list, given the organization's tools among them. */
export const nodeToolIssues = (definition: WorkflowDefinition, found: ReadonlyArray<StoredTool>): ReadonlyArray<DefinitionIssue> => {
  const tools = new Map(found.map((t) => [t.tool_uuid, t]))
  const issues: Array<DefinitionIssue> = []
  const transitions = new Map<string, Set<string>>()
  for (const edge of definition.edges) {
    const names = transitions.get(edge.source) ?? new Set<string>()
    names.add(transitionToolName(edge.data.label))
    transitions.set(edge.source, names)
  }
  for (const node of definition.nodes) {
    const listed = stringsOf(node.data.tool_uuids)
    const filters = isObject(node.data.mcp_tool_filters) ? node.data.mcp_tool_filters : {}
    if (listed.length === 0 && Object.keys(filters).length === 0) continue
    const issue = (field: string, message: string) => void issues.push({ kind: "node", id: node.id, field, message: `node '${node.id}' ${field}: ${message}` })
    /** Function name → what it belongs to, to report a second one by name. */
    const offered = new Map<string, string>()
    for (const name of transitions.get(node.id) ?? []) offered.set(name, `the transition '${name}'`)
    for (const name of BUILT_IN_FUNCTIONS) offered.set(name, `the built-in tool ${name}`)
    const offer = (name: string, what: string) => {
      const taken = offered.get(name)
      if (taken !== undefined) issue("tool_uuids", `${what} would be offered to the model as ${name}, the name of ${taken}; rename one of them`)
      else offered.set(name, what)
    }
    for (const uuid of new Set(listed)) {
      const tool = tools.get(uuid)
      if (tool === undefined) {
        issue("tool_uuids", `tool '${uuid}' does not exist in this organization`)
        continue
      }
      if (tool.status !== "active") {
        issue("tool_uuids", `tool '${tool.name}' (${uuid}) is archived; unarchive it or remove it from this step`)
        continue
      }
      const definition = tool.definition
      if (definition.type === "http_api") offer(functionName(tool.name), `tool '${tool.name}'`)
      else {
        const chosen = filters[uuid]
        for (const t of allowedMcpTools(definition.config, Array.isArray(chosen) ? stringsOf(chosen) : undefined)) {
          offer(mcpFunctionName(t.name), `${t.name} of MCP tool '${tool.name}'`)
        }
      }
    }
    for (const [uuid, names] of Object.entries(filters)) {
      const tool = tools.get(uuid)
      if (!listed.includes(uuid)) {
        issue("mcp_tool_filters", `'${uuid}' is not a tool this step lists in tool_uuids`)
        continue
      }
      if (tool === undefined || tool.status !== "active") continue // reported above
      const definition = tool.definition
      if (definition.type !== "mcp") {
        issue("mcp_tool_filters", `tool '${tool.name}' (${uuid}) is not an MCP tool; only an MCP tool's server tools can be chosen`)
        continue
      }
      const known = definition.config.discovered_tools.map((t) => t.name)
      const allowed = allowedMcpTools(definition.config, undefined).map((t) => t.name)
      for (const name of stringsOf(names)) {
        if (known.length === 0) {
          issue("mcp_tool_filters", `MCP tool '${tool.name}' has not listed its server's tools yet; refresh it, then choose among them`)
          break
        }
        if (!known.includes(name)) issue("mcp_tool_filters", `MCP tool '${tool.name}' has no tool '${name}' (its server lists ${known.join(", ")})`)
        else if (!allowed.includes(name)) issue("mcp_tool_filters", `MCP tool '${tool.name}' does not allow '${name}' (its tools_filter)`)
      }
    }
  }
  return issues
}

/** The agents' `ListedTools`: a definition's node tools checked against the organization's tools. */
export const layer = Layer.effect(
  ListedTools,
  Effect.map(ToolsRepo, (repo) =>
    ListedTools.of({
      problems: (organizationId, definition) => {
        const listed = listedToolUuids(definition)
        return listed.length === 0
          ? Effect.succeed([])
          : Effect.map(repo.findMany(organizationId, listed), (found) => nodeToolIssues(definition, found))
      }
    }))
)
