/**
 * The agent definition: ReactFlow-style `{nodes: [{id, type, position, data}], edges: [{id, source,
 * target, data}]}` with the node and edge fields the reference documents.
 *
 * Unknown keys are kept everywhere (top level such as `viewport`, nodes, node data, edges, edge data):
 * editors store their own state there, and the reference's habit of stripping unknown data keys on save
 * silently loses it. Every schema below therefore carries a `Record<string, unknown>` index signature,
 * which keeps extra keys on decode and on encode alike.
 *
 * Optional fields accept `null` as "not set", as the reference's JSON does.
 */
import { Either, Option, ParseResult, Schema, SchemaAST } from "effect"

// ---------------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------------

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

/** Path segment of the public trigger URL `/api/v1/public/agent/{trigger_path}`. */
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

const NODE_SCHEMAS = {
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

// ---------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------

/** One problem with a definition, in the reference's `{kind, id, field, message}` shape. */
export interface DefinitionIssue {
  readonly kind: "node" | "edge" | "workflow"
  /** The node's or edge's id; null for workflow-wide problems and for items without a usable id. */
  readonly id: string | null
  /** The field at fault, without the `data.` prefix (`name`, `prompt`, `label`, `extraction_variables.0.name`). */
  readonly field: string | null
  readonly message: string
}

/**
 * The tool name the LLM sees for an edge, as the reference derives it: labels that differ only in
 * case or punctuation ("Book it" / "book-it") become the same tool and make the transition ambiguous.
 */
export const transitionToolName = (label: string): string => label.toLowerCase().replace(/[^a-z0-9]/g, "_")

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const usableId = (u: unknown): string | null => (typeof u === "string" && u.trim() !== "" ? u : null)

/**
 * Flattens a parse issue into one `{path, message}` per failing field. A union is one problem with its
 * field: when all but one member failed merely for not being `null`, the remaining member's own issues
 * are the real ones (a list with a bad element is not "expected null").
 */
const failures = (
  issue: ParseResult.ParseIssue,
  path: ReadonlyArray<PropertyKey>,
  out: Array<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
): void => {
  switch (issue._tag) {
    case "Pointer":
      return failures(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])], out)
    case "Missing":
      return void out.push({ path, message: "is required" })
    case "Composite": {
      const members = (Array.isArray(issue.issues) ? issue.issues : [issue.issues]) as ReadonlyArray<ParseResult.ParseIssue>
      if (issue.ast._tag === "Union") {
        const real = members.filter((m) => !(m._tag === "Type" && m.ast._tag === "Literal" && m.ast.literal === null))
        if (real.length === 1 && Option.isNone(SchemaAST.getMessageAnnotation(issue.ast))) return failures(real[0]!, path, out)
        return void out.push({ path, message: ParseResult.ArrayFormatter.formatIssueSync(issue)[0]?.message ?? "is not valid" })
      }
      for (const member of members) failures(member, path, out)
      return
    }
    default:
      for (const formatted of ParseResult.ArrayFormatter.formatIssueSync(issue)) {
        out.push({ path: [...path, ...formatted.path], message: formatted.message })
      }
  }
}

const schemaIssues = (
  schema: Schema.Schema.AnyNoContext,
  value: unknown,
  kind: "node" | "edge",
  id: string | null,
  skip: ReadonlySet<string>
): ReadonlyArray<DefinitionIssue> => {
  const result = Schema.decodeUnknownEither(schema, { errors: "all" })(value)
  if (Either.isRight(result)) return []
  const found: Array<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }> = []
  failures(result.left.issue, [], found)
  const seen = new Set<string>()
  return found.flatMap(({ message, path }) => {
    const segments = path.map(String)
    // Fields inside `data` go by their own names, as editors show them; one issue per field.
    const field = (segments[0] === "data" && segments.length > 1 ? segments.slice(1) : segments).join(".")
    if (skip.has(segments[0] ?? "") || seen.has(field)) return []
    seen.add(field)
    return [{ kind, id, field: field === "" ? null : field, message: `${field} ${message}` }]
  })
}

/**
 * Checks a definition and reports every problem found, not the first only.
 *
 * All of these checks are structural and enforced on every save. The reference enforces most of them
 * only when a draft is published; here every save publishes a version at once (see `Workflow.ts`), so
 * a saved definition must be one a call can run: each node well-formed for its type (name, prompt,
 * typed fields, trigger path format), ids unique, edges between existing nodes with a label and a
 * condition, exactly one start node, at most one global node and one trigger, and the per-type edge
 * rules (nothing into the start or a trigger, nothing out of an end, no edges at global, webhook and
 * QA nodes, no two transitions from one node that the LLM would see as the same tool). Cycles are
 * allowed: conversations loop back. Reachability is not required (the reference's publish gate wants an
 * edge into every agent and end node): a node no edge leads to is dead weight, not a danger, and
 * refusing it would stop an agent from being built up one save at a time.
 *
 * Not checked here because they need other data: trigger paths owned by other agents (the repository
 * reserves them atomically) and references to tools, documents, credentials and recordings.
 *
 * `definition` is the decoded definition when `errors` is empty. Otherwise it is the input with
 * `nodes`/`edges` forced to arrays, for callers that want to show it back; it is not to be trusted.
 */
export const validateDefinition = (
  input: unknown
): { readonly definition: WorkflowDefinition; readonly errors: ReadonlyArray<DefinitionIssue> } => {
  const errors: Array<DefinitionIssue> = []
  const issue = (kind: DefinitionIssue["kind"], id: string | null, field: string | null, message: string) =>
    void errors.push({ kind, id, field, message })

  if (!isObject(input)) {
    issue("workflow", null, null, "workflow_definition must be an object with `nodes` and `edges` arrays")
    return { definition: { nodes: [], edges: [] }, errors }
  }
  if (!Array.isArray(input.nodes)) issue("workflow", null, "nodes", "nodes must be an array of nodes")
  if (!Array.isArray(input.edges)) issue("workflow", null, "edges", "edges must be an array of edges (it may be empty)")
  const nodes: ReadonlyArray<unknown> = Array.isArray(input.nodes) ? input.nodes : []
  const edges: ReadonlyArray<unknown> = Array.isArray(input.edges) ? input.edges : []

  // Nodes -------------------------------------------------------------------------------------------
  const allIds = new Set<string>()
  const typeOf = new Map<string, NodeType>()
  const byType = new Map<NodeType, Array<string>>()
  nodes.forEach((raw, index) => {
    if (!isObject(raw)) return issue("node", null, null, `nodes[${index}] must be an object`)
    const id = usableId(raw.id)
    if (id === null) issue("node", null, "id", `nodes[${index}] needs an id: a non-empty string unique among the nodes`)
    else if (allIds.has(id)) issue("node", id, "id", `node id '${id}' is used by more than one node; ids must be unique`)
    const type = raw.type
    if (typeof type !== "string" || !(NODE_TYPES as ReadonlyArray<string>).includes(type)) {
      issue(
        "node",
        id,
        "type",
        type === undefined
          ? `type is required: one of ${NODE_TYPES.join(", ")}`
          : `type ${JSON.stringify(type)} is not a node type; use one of ${NODE_TYPES.join(", ")}`
      )
    } else {
      errors.push(...schemaIssues(NODE_SCHEMAS[type as NodeType], raw, "node", id, new Set(["id", "type"])))
    }
    if (id === null || allIds.has(id)) return
    allIds.add(id)
    if (typeof type === "string" && (NODE_TYPES as ReadonlyArray<string>).includes(type)) {
      typeOf.set(id, type as NodeType)
      byType.set(type as NodeType, [...(byType.get(type as NodeType) ?? []), id])
    }
  })

  // Instance limits are properties of the whole definition, as the reference reports them.
  const instances = (type: NodeType) => byType.get(type) ?? []
  if (instances("startCall").length !== 1) {
    issue(
      "workflow",
      null,
      "nodes",
      instances("startCall").length === 0
        ? "a startCall node is required: it is where every call begins"
        : `exactly one startCall node is allowed, found ${instances("startCall").length} (${instances("startCall").join(", ")})`
    )
  }
  for (const type of ["globalNode", "trigger"] as const) {
    if (instances(type).length > 1) {
      issue("workflow", null, "nodes", `at most one ${type} node is allowed, found ${instances(type).length} (${instances(type).join(", ")})`)
    }
  }

  // Edges -------------------------------------------------------------------------------------------
  const edgeIds = new Set<string>()
  const toolNames = new Map<string, string>()
  edges.forEach((raw, index) => {
    if (!isObject(raw)) return issue("edge", null, null, `edges[${index}] must be an object`)
    const id = usableId(raw.id)
    if (id === null) issue("edge", null, "id", `edges[${index}] needs an id: a non-empty string unique among the edges`)
    else if (edgeIds.has(id)) issue("edge", id, "id", `edge id '${id}' is used by more than one edge; ids must be unique`)
    else edgeIds.add(id)
    errors.push(...schemaIssues(WorkflowEdge, raw, "edge", id, new Set(["id"])))

    const ends = { source: usableId(raw.source), target: usableId(raw.target) }
    for (const end of ["source", "target"] as const) {
      const nodeId = ends[end]
      if (nodeId !== null && !allIds.has(nodeId)) issue("edge", id, end, `${end} '${nodeId}' is not a node of this definition`)
    }
    const sourceType = ends.source === null ? undefined : typeOf.get(ends.source)
    const targetType = ends.target === null ? undefined : typeOf.get(ends.target)

    if (targetType === "startCall") issue("edge", id, "target", "the startCall node cannot have incoming edges: calls only begin there")
    if (targetType === "trigger") issue("edge", id, "target", "a trigger node cannot have incoming edges")
    if (sourceType === "endCall") issue("edge", id, "source", "an endCall node cannot have outgoing edges: the call ends there")
    for (const [end, type] of [["source", sourceType], ["target", targetType]] as const) {
      if (type === "globalNode" || type === "webhook" || type === "qa") {
        issue("edge", id, end, `a ${type} node cannot be connected by edges; remove this edge`)
      }
    }

    const data = isObject(raw.data) ? raw.data : undefined
    if (ends.source !== null && data !== undefined && typeof data.label === "string" && data.label.trim() !== "") {
      const key = `${ends.source}\u0000${transitionToolName(data.label)}`
      const first = toolNames.get(key)
      if (first !== undefined) {
        issue(
          "edge",
          id,
          "label",
          `label '${data.label}' leaves '${ends.source}' under the same transition name as edge '${first}'; labels from one node must differ by more than case and punctuation`
        )
      } else toolNames.set(key, id ?? `#${index}`)
    }
  })

  if (errors.length > 0) {
    return { definition: { ...input, nodes, edges } as unknown as WorkflowDefinition, errors }
  }
  const decoded = Schema.decodeUnknownEither(WorkflowDefinition)(input)
  if (Either.isLeft(decoded)) {
    // The checks above mirror the schema; this only fires if the two ever disagree.
    issue("workflow", null, null, ParseResult.TreeFormatter.formatErrorSync(decoded.left))
    return { definition: { ...input, nodes, edges } as unknown as WorkflowDefinition, errors }
  }
  return { definition: decoded.right, errors }
}

// ---------------------------------------------------------------------------------------------------
// Trigger paths
// ---------------------------------------------------------------------------------------------------

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
