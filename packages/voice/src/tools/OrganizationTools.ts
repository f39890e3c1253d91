/**
 * The organization's tools at a node (`@agentline/core/tools/ToolCalls`'s `forNode`) as `@effect/ai`
 * tools, next to the graph's own (transitions, end call, extraction: `graph/Tools.ts`).
 *
 * Each is offered with its JSON Schema as written (nested objects, enums, arrays), and decodes any
 * object: the tool-call service checks the arguments itself and tells the model what to correct, where
 * a strict decoding would fail the whole reply. Nothing here calls a tool: the runtime resolves tool
 * calls itself (`disableToolCallResolution`), and calls an organization's tool with `find(name).call`.
 */
import type { NodeTools, OfferedTool } from "@agentline/core/tools/ToolCalls"
import { Tool } from "@effect/ai"
import { Schema } from "effect"

/** Any object, offered to the model as `parameters` says. */
const argumentsOf = (parameters: OfferedTool["parameters"]) =>
  Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ jsonSchema: parameters })

/** One organization tool as an `@effect/ai` tool: its function name, description and JSON Schema. */
export const aiTool = (offered: OfferedTool): Tool.Any =>
  Tool.make(offered.name, { description: offered.description, success: Schema.String }).setParameters(argumentsOf(offered.parameters))

export interface OrganizationToolkit {
  /** The node's organization tools by function name, to add to the request's toolkit. */
  readonly tools: Readonly<Record<string, Tool.Any>>
  /** The organization tool the model called by `name`; none when the name is one of the graph's tools. */
  readonly find: (name: string) => OfferedTool | undefined
}

/**
 * The toolkit of a node's organization tools. Names the graph's tools already take are left out (a
 * definition saved since tools existed has none: saving refuses such clashes).
 */
export const organizationToolkit = (node: NodeTools, taken: ReadonlySet<string> = new Set()): OrganizationToolkit => {
  const offered = node.tools.filter((t) => !taken.has(t.name))
  const byName = new Map(offered.map((t) => [t.name, t]))
  return {
    tools: Object.fromEntries(offered.map((t) => [t.name, aiTool(t)])),
    find: (name) => byName.get(name)
  }
}
