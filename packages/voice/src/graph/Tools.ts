/**
 * The tools the LLM is offered at a node: one transition per outgoing edge (named by its label, described
 * by its condition), the end-call tool, and the extraction tool when the node extracts variables.
 * Parameters are JSON Schemas, the shape every function-calling LLM API takes.
 */
import { transitionToolName } from "@agentline/core/workflows/WorkflowDefinition"
import type { WorkflowEdge } from "@agentline/core/workflows/WorkflowDefinition"
import type { ConversationGraph, ConversationNode } from "./ConversationGraph.js"

export interface JsonSchemaObject {
  readonly type: "object"
  readonly properties: Readonly<Record<string, { readonly type: "string" | "number" | "boolean"; readonly description?: string }>>
  readonly required: ReadonlyArray<string>
  readonly additionalProperties: false
}

export type ToolKind =
  | { readonly _tag: "Transition"; readonly edge: WorkflowEdge }
  | { readonly _tag: "EndCall" }
  | { readonly _tag: "Extraction" }

export interface Tool {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchemaObject
  readonly kind: ToolKind
}

export const END_CALL_TOOL = "end_call"
export const EXTRACTION_TOOL = "extract_variables"

const noParameters: JsonSchemaObject = { type: "object", properties: {}, required: [], additionalProperties: false }

const endCallParameters: JsonSchemaObject = {
  type: "object",
  properties: {
    disposition: {
      type: "string",
      description: "A short snake_case code for how the call went (for example interested, not_interested, callback_requested)"
    }
  },
  required: [],
  additionalProperties: false
}

/**
 * A built-in tool whose name an edge's label already takes gets `_` appended until it is free: the
 * edge's name is the author's (an edge labelled "End call" is a real transition), the built-in's is ours.
 */
const freeName = (wanted: string, taken: ReadonlySet<string>): string => {
  let name = wanted
  while (taken.has(name)) name = `${name}_`
  return name
}

export const extractionEnabled = (node: ConversationNode): boolean =>
  node.data.extraction_enabled === true && (node.data.extraction_variables ?? []).length > 0

const extractionParameters = (node: ConversationNode): JsonSchemaObject => ({
  type: "object",
  properties: Object.fromEntries(
    (node.data.extraction_variables ?? []).map((v) => [
      v.name,
      typeof v.prompt === "string" && v.prompt.trim() !== "" ? { type: v.type, description: v.prompt } : { type: v.type }
    ])
  ),
  // The caller may not have said everything yet: each variable is reported when it is known.
  required: [],
  additionalProperties: false
})

export const nodeTools = (graph: ConversationGraph, node: ConversationNode): ReadonlyArray<Tool> => {
  const transitions: Array<Tool> = (graph.outgoing.get(node.id) ?? []).map((edge) => ({
    name: transitionToolName(edge.data.label),
    description: edge.data.condition,
    parameters: noParameters,
    kind: { _tag: "Transition", edge }
  }))
  const taken = new Set(transitions.map((t) => t.name))
  const endCall: Tool = {
    name: freeName(END_CALL_TOOL, taken),
    description: "End the call politely once the conversation is over or the caller wants to hang up. Say goodbye first.",
    parameters: endCallParameters,
    kind: { _tag: "EndCall" }
  }
  taken.add(endCall.name)
  if (!extractionEnabled(node)) return [...transitions, endCall]
  const prompt = node.data.extraction_prompt
  const extraction: Tool = {
    name: freeName(EXTRACTION_TOOL, taken),
    description: typeof prompt === "string" && prompt.trim() !== ""
      ? prompt
      : "Record what the caller has told you for these variables, as soon as you know them.",
    parameters: extractionParameters(node),
    kind: { _tag: "Extraction" }
  }
  return [...transitions, endCall, extraction]
}
