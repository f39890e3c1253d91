/**
 * A step's tools as its form edits them (pure): which of the organization's tools it lists
 * (`tool_uuids`) and, for an MCP tool, which of its server's tools it may use (`mcp_tool_filters`,
 * by the tool's uuid; no entry: all those the tool allows).
 */
import type { JsonObject } from "./definitionGraph.js"

const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

const strings = (u: unknown): ReadonlyArray<string> => (Array.isArray(u) ? u.filter((s): s is string => typeof s === "string") : [])

const without = (data: JsonObject, key: string): JsonObject => {
  const { [key]: _removed, ...rest } = data
  return rest
}

/** The tools a step lists, in order. */
export const listedTools = (data: JsonObject): ReadonlyArray<string> => strings(data.tool_uuids)

/** The server tools a step chose of an MCP tool; undefined: all the tool allows. */
export const chosenMcpTools = (data: JsonObject, toolUuid: string): ReadonlyArray<string> | undefined => {
  const filters = isObject(data.mcp_tool_filters) ? data.mcp_tool_filters : {}
  return Array.isArray(filters[toolUuid]) ? strings(filters[toolUuid]) : undefined
}

const withFilters = (data: JsonObject, filters: JsonObject): JsonObject =>
  Object.keys(filters).length === 0 ? without(data, "mcp_tool_filters") : { ...data, mcp_tool_filters: filters }

/** `data` with the tool listed or not; a tool no longer listed takes its MCP choice with it. */
export const withTool = (data: JsonObject, toolUuid: string, listed: boolean): JsonObject => {
  const current = listedTools(data)
  const next = listed ? (current.includes(toolUuid) ? current : [...current, toolUuid]) : current.filter((u) => u !== toolUuid)
  const updated = next.length === 0 ? without(data, "tool_uuids") : { ...data, tool_uuids: next }
  if (listed) return updated
  const filters = isObject(data.mcp_tool_filters) ? data.mcp_tool_filters : {}
  return withFilters(updated, without(filters, toolUuid))
}

/**
 * `data` with one server tool of an MCP tool chosen or not, among `allowed` (what the tool offers).
 * Choosing them all removes the entry (the step then follows the tool's own list).
 */
export const withMcpTool = (data: JsonObject, toolUuid: string, allowed: ReadonlyArray<string>, name: string, chosen: boolean): JsonObject => {
  const current = chosenMcpTools(data, toolUuid) ?? allowed
  const next = allowed.filter((n) => (n === name ? chosen : current.includes(n)))
  const filters = isObject(data.mcp_tool_filters) ? data.mcp_tool_filters : {}
  return withFilters(data, next.length === allowed.length ? without(filters, toolUuid) : { ...filters, [toolUuid]: next })
}
