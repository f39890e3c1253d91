/**
 * Every node type an agent definition may hold, and the data of an edge, each declared once (see
 * `NodeSpec.ts`): the node-type catalog (`GET /api/v1/node-types`), the server's definition schemas
 * and graph rules (`@agentline/core/workflows/`) and the dashboard's node forms all read these.
 *
 * Descriptions are for people (the editor shows them under the field); `llm_hint`s are for programs
 * and language models building definitions (which list an id comes from, what is stored but not acted
 * on yet). Defaults are what the server does when a field is absent.
 */
import { dataOf, type NodeSpec, type PropertySpec, requiredText, SPEC_VERSION, specsOf, text } from "./NodeSpec.js"
import { recordingFor, spokenAs } from "./nodes/Fields.js"
import { AgentNode, EndCall, GlobalNode, StartCall } from "./nodes/Conversation.js"
import { Trigger, Webhook } from "./nodes/Integrations.js"
import { Qa } from "./nodes/Qa.js"
import { Transfer } from "./TransferNode.js"

export { AgentNode, EndCall, GlobalNode, Qa, StartCall, Transfer, Trigger, Webhook }

/** Every node type, by name. */
export const NODE_TYPE_DECLARATIONS = {
  startCall: StartCall,
  agentNode: AgentNode,
  endCall: EndCall,
  transfer: Transfer,
  globalNode: GlobalNode,
  trigger: Trigger,
  webhook: Webhook,
  qa: Qa
} as const

export const NODE_TYPES = ["startCall", "agentNode", "endCall", "transfer", "globalNode", "trigger", "webhook", "qa"] as const satisfies ReadonlyArray<
  keyof typeof NODE_TYPE_DECLARATIONS
>
export type NodeType = (typeof NODE_TYPES)[number]

/** A value per node type, made by `f`. */
export const byNodeType = <A>(f: (type: NodeType) => A): { readonly [T in NodeType]: A } => ({
  startCall: f("startCall"),
  agentNode: f("agentNode"),
  endCall: f("endCall"),
  transfer: f("transfer"),
  globalNode: f("globalNode"),
  trigger: f("trigger"),
  webhook: f("webhook"),
  qa: f("qa")
})

export const isNodeType = (value: unknown): value is NodeType =>
  typeof value === "string" && (NODE_TYPES as ReadonlyArray<string>).includes(value)

/** The catalog, in the order editors list the types. */
export const NODE_TYPE_SPECS: ReadonlyArray<NodeSpec> = NODE_TYPES.map((type) => NODE_TYPE_DECLARATIONS[type].spec)

export const nodeTypesResponse = { spec_version: SPEC_VERSION, node_types: NODE_TYPE_SPECS }

// ------------------------------------------------------------------------------------------ edges

const EDGE_PROPERTIES = {
  label: requiredText({
    display_name: "Label",
    description: "The transition's name; labels from one node must differ by more than case and punctuation.",
    llm_hint: "The model sees it as a tool name: lower-cased, every other character than a-z and 0-9 made '_'."
  }),
  condition: requiredText({
    editor: "textarea",
    display_name: "Condition",
    description: "When the conversation moves on along this edge, in plain words.",
    llm_hint: "The transition tool's description: the model takes the edge when it judges this true."
  }),
  transition_speech: text({
    type: "mention_textarea",
    display_name: "Transition speech",
    description: "Said while moving on (e.g. 'One moment, please'); {{variable}} inserts a value of the call."
  }),
  transition_speech_type: spokenAs("Transition speech type", "the transition text"),
  transition_speech_recording_id: recordingFor("transition_speech_type", "Transition speech recording", "The recording played when the type is Recording.")
}

/** An edge's `data` (not part of the reference's catalog, which covers nodes only; the editor's edge form reads it). */
export const EdgeData = dataOf(EDGE_PROPERTIES)
export const EDGE_PROPERTY_SPECS: ReadonlyArray<PropertySpec> = specsOf(EDGE_PROPERTIES)

// ------------------------------------------------------------------------------------------ graph rules

/** An edge end that breaks its node type's graph rules. */
export interface EdgeRuleBreak {
  readonly end: "source" | "target"
  readonly type: NodeType
  /** `no_edges`: the type takes none at all; otherwise the direction it takes none in. */
  readonly rule: "no_edges" | "no_incoming" | "no_outgoing"
  readonly why: string | undefined
}

const takesNoEdges = (type: NodeType) => {
  const graph = NODE_TYPE_DECLARATIONS[type].graph
  return graph.max_incoming === 0 && graph.max_outgoing === 0
}

/**
 * The graph rules an edge from a node of type `source` to one of type `target` breaks (either may be
 * unknown): into a type that takes no incoming edges, out of one that takes no outgoing edges, or at
 * a type that takes none. Nothing: the edge is allowed.
 */
export const edgeRuleBreaks = (source: NodeType | undefined, target: NodeType | undefined): ReadonlyArray<EdgeRuleBreak> => {
  const out: Array<EdgeRuleBreak> = []
  if (target !== undefined && !takesNoEdges(target) && NODE_TYPE_DECLARATIONS[target].graph.max_incoming === 0) {
    out.push({ end: "target", type: target, rule: "no_incoming", why: NODE_TYPE_DECLARATIONS[target].graph.why?.incoming })
  }
  if (source !== undefined && !takesNoEdges(source) && NODE_TYPE_DECLARATIONS[source].graph.max_outgoing === 0) {
    out.push({ end: "source", type: source, rule: "no_outgoing", why: NODE_TYPE_DECLARATIONS[source].graph.why?.outgoing })
  }
  for (const [end, type] of [["source", source], ["target", target]] as const) {
    if (type !== undefined && takesNoEdges(type)) out.push({ end, type, rule: "no_edges", why: NODE_TYPE_DECLARATIONS[type].graph.why?.incoming })
  }
  return out
}

/** The types whose `prompt` the agent speaks from (each needs a non-empty one). */
export const PROMPTED_NODE_TYPES: ReadonlyArray<NodeType> = NODE_TYPES.filter((type) => "prompt" in NODE_TYPE_DECLARATIONS[type].properties)
