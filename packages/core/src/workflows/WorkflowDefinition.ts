/**
 * The agent definition: ReactFlow-style `{nodes: [{id, type, position, data}], edges: [{id, source,
 * target, data}]}` with the node and edge fields the reference documents.
 *
 * Unknown keys are kept everywhere (top level such as `viewport`, nodes, node data, edges, edge data):
 * editors store their own state there, and the reference's habit of stripping unknown data keys on save
 * silently loses it. Every schema below therefore carries a `Record<string, unknown>` index signature,
 * which keeps extra keys on decode and on encode alike.
 *
 * Optional fields accept `null` as "not set", as the reference's JSON does. Checking a definition as
 * a whole (every problem, with the node or edge it belongs to) is `DefinitionValidation.ts`.
 */
import { container, Extra, NonEmptyString, says } from "@agentline/api/workflows/NodeSpec"
import { EdgeData as EdgeDataSchema, NODE_TYPE_DECLARATIONS, type NodeType } from "@agentline/api/workflows/NodeTypes"
import { Schema } from "effect"

export { isNodeType, NODE_TYPES, type NodeType, PROMPTED_NODE_TYPES } from "@agentline/api/workflows/NodeTypes"

/** Path segment of the agent's public trigger URL (`.../public/agent/{trigger_path}` of the API). */
export const TRIGGER_PATH_PATTERN = /^[A-Za-z0-9_-]{1,36}$/

export const Position = Schema.Struct({
  x: Schema.Number.annotations(says("must be a number")),
  y: Schema.Number.annotations(says("must be a number"))
}, Extra).annotations(container)

// The data of each node type and of an edge are declared once, with the node-type catalog
// (`@agentline/api/workflows/NodeTypes`): the catalog, these schemas and the dashboard's forms agree.
export const StartCallData = NODE_TYPE_DECLARATIONS.startCall.data
export const AgentNodeData = NODE_TYPE_DECLARATIONS.agentNode.data
export const EndCallData = NODE_TYPE_DECLARATIONS.endCall.data
export const TransferData = NODE_TYPE_DECLARATIONS.transfer.data
export const GlobalNodeData = NODE_TYPE_DECLARATIONS.globalNode.data
export const TriggerData = NODE_TYPE_DECLARATIONS.trigger.data
export const WebhookData = NODE_TYPE_DECLARATIONS.webhook.data
export const QaData = NODE_TYPE_DECLARATIONS.qa.data
export const ExtractionVariable = NODE_TYPE_DECLARATIONS.agentNode.properties.extraction_variables.row
export const CustomHeader = NODE_TYPE_DECLARATIONS.webhook.properties.custom_headers.row
export const EdgeData = EdgeDataSchema

const NodeId = NonEmptyString

/** `position` is the editor's business: optional, so agents built through the API need not invent coordinates. */
const node = <T extends NodeType, D extends Schema.Schema.Any>(type: T, data: D) =>
  Schema.Struct({ id: NodeId, type: Schema.Literal(type), position: Schema.optionalWith(Position, { exact: true }), data }, Extra)
    .annotations(container)

export const StartCallNode = node("startCall", StartCallData)
export const AgentNode = node("agentNode", AgentNodeData)
export const EndCallNode = node("endCall", EndCallData)
export const TransferNode = node("transfer", TransferData)
export const GlobalNode = node("globalNode", GlobalNodeData)
export const TriggerNode = node("trigger", TriggerData)
export const WebhookNode = node("webhook", WebhookData)
export const QaNode = node("qa", QaData)

/** The schema of each node type, for validation that reports per node. */
export const NODE_SCHEMAS = {
  startCall: StartCallNode,
  agentNode: AgentNode,
  endCall: EndCallNode,
  transfer: TransferNode,
  globalNode: GlobalNode,
  trigger: TriggerNode,
  webhook: WebhookNode,
  qa: QaNode
} as const

export const WorkflowNode = Schema.Union(StartCallNode, AgentNode, EndCallNode, TransferNode, GlobalNode, TriggerNode, WebhookNode, QaNode)
export type WorkflowNode = typeof WorkflowNode.Type

export const WorkflowEdge = Schema.Struct({ id: NodeId, source: NodeId, target: NodeId, data: EdgeData }, Extra).annotations(container)
export type WorkflowEdge = typeof WorkflowEdge.Type

export const WorkflowDefinition = Schema.Struct({
  nodes: Schema.Array(WorkflowNode),
  edges: Schema.Array(WorkflowEdge)
}, Extra).annotations(container)
export type WorkflowDefinition = typeof WorkflowDefinition.Type

/**
 * The tool name the LLM sees for an edge, as the reference derives it: labels that differ only in
 * case or punctuation ("Book it" / "book-it") become the same tool and make the transition ambiguous.
 */
export const transitionToolName = (label: string): string => label.toLowerCase().replace(/[^a-z0-9]/g, "_")

const needsPath = (path: unknown) => path === undefined || path === null || path === ""

/**
 * Gives every trigger node without a `trigger_path` a fresh one from `newId` (a UUID in production:
 * 36 characters, within the path format). Nodes that have one keep it, so a trigger URL survives edits.
 */
export const mintTriggerPaths = (definition: WorkflowDefinition, newId: () => string): WorkflowDefinition => ({
  ...definition,
  nodes: definition.nodes.map((n) =>
    n.type === "trigger" && needsPath(n.data.trigger_path) ? { ...n, data: { ...n.data, trigger_path: newId() } } : n
  )
})

/** The trigger paths a definition claims, in node order. */
export const triggerPaths = (definition: WorkflowDefinition): ReadonlyArray<string> =>
  definition.nodes.flatMap((n) =>
    n.type === "trigger" && typeof n.data.trigger_path === "string" && n.data.trigger_path !== "" ? [n.data.trigger_path] : []
  )

/** A recording a definition plays: where it is named (node or edge, and the field) and its id. */
export interface RecordingReference {
  readonly kind: "node" | "edge"
  readonly id: string
  readonly field: "greeting_recording_id" | "transition_speech_recording_id"
  readonly recordingId: string
}

/**
 * The recordings a definition plays: a start node's greeting and edges' transition speech whose type is
 * `audio`. An id left behind with type `text` plays nothing and is not a reference.
 */
export const recordingReferences = (definition: WorkflowDefinition): ReadonlyArray<RecordingReference> => [
  ...definition.nodes.flatMap((n): ReadonlyArray<RecordingReference> =>
    n.type === "startCall" && n.data.greeting_type === "audio" && typeof n.data.greeting_recording_id === "string" &&
      n.data.greeting_recording_id.trim() !== ""
      ? [{ kind: "node", id: n.id, field: "greeting_recording_id", recordingId: n.data.greeting_recording_id }]
      : []
  ),
  ...definition.edges.flatMap((e): ReadonlyArray<RecordingReference> =>
    e.data.transition_speech_type === "audio" && typeof e.data.transition_speech_recording_id === "string" &&
      e.data.transition_speech_recording_id.trim() !== ""
      ? [{ kind: "edge", id: e.id, field: "transition_speech_recording_id", recordingId: e.data.transition_speech_recording_id }]
      : []
  )
]
