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
import { Schema } from "effect"

/** Leaf schemas carry their own wording so every issue reads "<field> <what is wrong>". */
const says = (message: string) => ({ message: () => ({ message, override: true }) })
/** For containers: used when the value is not a container at all; problems inside are reported one by one. */
const container = { message: () => "must be an object" }
const list = { message: () => "must be a list" }

const Extra = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const opt = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })
const nullable = <S extends Schema.Schema.Any>(schema: S) => opt(Schema.NullOr(schema))

const NonEmptyString = Schema.String.pipe(Schema.filter((s) => s.trim() !== "")).annotations(
  says("must be a non-empty string")
)
const Text = Schema.String.annotations(says("must be a string"))
const Flag = Schema.Boolean.annotations(says("must be true or false"))
const Strings = Schema.Array(Text).annotations(list)
const JsonObject = Extra.annotations(says("must be an object"))
const oneOf = <const L extends ReadonlyArray<string>>(...values: L) =>
  Schema.NullOr(Schema.Literal(...values)).annotations(says(`must be one of ${values.map((v) => `"${v}"`).join(", ")}`))
const numberIn = (min: number, max: number, int: boolean) =>
  (int ? Schema.Int : Schema.Number).pipe(Schema.between(min, max)).annotations(
    says(`must be ${int ? "a whole number" : "a number"} from ${min} to ${max}`)
  )

/** Path segment of the agent's public trigger URL (`.../public/agent/{trigger_path}` of the API). */
export const TRIGGER_PATH_PATTERN = /^[A-Za-z0-9_-]{1,36}$/
/** Empty means "mint one on save" (`mintTriggerPaths`). */
const TriggerPath = Schema.String.pipe(Schema.filter((s) => s === "" || TRIGGER_PATH_PATTERN.test(s))).annotations(
  says("must be 1 to 36 characters of letters, digits, '_' and '-'")
)

export const Position = Schema.Struct({
  x: Schema.Number.annotations(says("must be a number")),
  y: Schema.Number.annotations(says("must be a number"))
}, Extra).annotations(container)

export const ExtractionVariable = Schema.Struct({
  name: NonEmptyString,
  type: Schema.Literal("string", "number", "boolean").annotations(says(`must be one of "string", "number", "boolean"`)),
  prompt: nullable(Text)
}, Extra).annotations(container)

export const CustomHeader = Schema.Struct({ key: NonEmptyString, value: Text }, Extra).annotations(container).annotations(container)

const base = { name: NonEmptyString }

const prompted = {
  prompt: NonEmptyString,
  allow_interrupt: opt(Flag),
  add_global_prompt: opt(Flag)
}

const extraction = {
  extraction_enabled: opt(Flag),
  extraction_prompt: nullable(Text),
  extraction_variables: nullable(Schema.Array(ExtractionVariable).annotations(list))
}

const references = {
  tool_uuids: nullable(Strings),
  document_uuids: nullable(Strings),
  mcp_tool_filters: nullable(Schema.Record({ key: Schema.String, value: Strings }))
}

export const StartCallData = Schema.Struct({
  ...base,
  ...prompted,
  ...extraction,
  ...references,
  greeting: nullable(Text),
  greeting_type: opt(oneOf("text", "audio")),
  greeting_recording_id: nullable(Text),
  delayed_start: opt(Flag),
  delayed_start_duration: nullable(numberIn(0.1, 10, false)),
  pre_call_fetch_mode: opt(oneOf("disabled", "always", "inbound", "outbound")),
  /** Legacy spelling of `pre_call_fetch_mode`, still accepted on input. */
  pre_call_fetch_enabled: opt(Flag),
  pre_call_fetch_url: nullable(Text),
  pre_call_fetch_credential_uuid: nullable(Text)
}, Extra).annotations(container)

export const AgentNodeData = Schema.Struct({ ...base, ...prompted, ...extraction, ...references }, Extra).annotations(container).annotations(container)

export const EndCallData = Schema.Struct({ ...base, ...prompted, ...extraction }, Extra).annotations(container).annotations(container)

/** The global prompt is prepended to other nodes', so interrupt and global-prompt switches mean nothing here. */
export const GlobalNodeData = Schema.Struct({ ...base, prompt: NonEmptyString }, Extra).annotations(container).annotations(container)

export const TriggerData = Schema.Struct({
  ...base,
  trigger_path: nullable(TriggerPath),
  enabled: opt(Flag)
}, Extra).annotations(container)

export const WebhookData = Schema.Struct({
  ...base,
  enabled: opt(Flag),
  http_method: opt(oneOf("GET", "POST", "PUT", "PATCH", "DELETE")),
  endpoint_url: nullable(Text),
  credential_uuid: nullable(Text),
  custom_headers: nullable(Schema.Array(CustomHeader).annotations(list)),
  payload_template: nullable(JsonObject)
}, Extra).annotations(container)

export const QaData = Schema.Struct({
  ...base,
  qa_enabled: opt(Flag),
  qa_system_prompt: nullable(Text),
  qa_min_call_duration: nullable(numberIn(0, Number.MAX_SAFE_INTEGER, true)),
  qa_voicemail_calls: opt(Flag),
  qa_sample_rate: nullable(numberIn(1, 100, true)),
  qa_use_workflow_llm: opt(Flag),
  qa_provider: opt(oneOf("openai", "azure", "openrouter", "anthropic")),
  qa_model: nullable(Text),
  qa_api_key: nullable(Text),
  qa_endpoint: nullable(Text)
}, Extra).annotations(container)

export const NODE_TYPES = ["startCall", "agentNode", "endCall", "globalNode", "trigger", "webhook", "qa"] as const
export type NodeType = (typeof NODE_TYPES)[number]

/** Nodes whose `prompt` the agent speaks from; each needs a non-empty one. */
export const PROMPTED_NODE_TYPES: ReadonlyArray<NodeType> = ["startCall", "agentNode", "endCall", "globalNode"]

const NodeId = Schema.String.pipe(Schema.filter((s) => s.trim() !== "")).annotations(says("must be a non-empty string"))

/** `position` is the editor's business: optional, so agents built through the API need not invent coordinates. */
const node = <T extends NodeType, D extends Schema.Schema.Any>(type: T, data: D) =>
  Schema.Struct({ id: NodeId, type: Schema.Literal(type), position: opt(Position), data }, Extra).annotations(container).annotations(container)

export const StartCallNode = node("startCall", StartCallData)
export const AgentNode = node("agentNode", AgentNodeData)
export const EndCallNode = node("endCall", EndCallData)
export const GlobalNode = node("globalNode", GlobalNodeData)
export const TriggerNode = node("trigger", TriggerData)
export const WebhookNode = node("webhook", WebhookData)
export const QaNode = node("qa", QaData)

/** The data schema of each node type, for validation that reports per node. */
export const NODE_SCHEMAS = {
  startCall: StartCallNode,
  agentNode: AgentNode,
  endCall: EndCallNode,
  globalNode: GlobalNode,
  trigger: TriggerNode,
  webhook: WebhookNode,
  qa: QaNode
} as const

export const WorkflowNode = Schema.Union(StartCallNode, AgentNode, EndCallNode, GlobalNode, TriggerNode, WebhookNode, QaNode)
export type WorkflowNode = typeof WorkflowNode.Type

export const EdgeData = Schema.Struct({
  /** Becomes the name of the LLM's transition tool on the source node. */
  label: NonEmptyString,
  /** Natural-language condition the LLM decides the transition on. */
  condition: NonEmptyString,
  transition_speech: nullable(Text),
  transition_speech_type: opt(oneOf("text", "audio")),
  transition_speech_recording_id: nullable(Text)
}, Extra).annotations(container)

export const WorkflowEdge = Schema.Struct({ id: NodeId, source: NodeId, target: NodeId, data: EdgeData }, Extra).annotations(container).annotations(container)
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
