/**
 * An agent's `workflow_definition` (ReactFlow-style `{nodes, edges}` JSON, as the API stores it) to and
 * from the editor's graph, plus the graph rules the editor applies while drawing.
 *
 * The server keeps every unknown key (top-level `viewport`, extra node and edge keys, extra `data`
 * keys); the editor must not lose them either, so a round trip `fromGraph(toGraph(d))` gives back `d`
 * (positions aside, which a node without one receives). The editor's own bookkeeping on nodes
 * (`selected`, `measured`, `dragging`…) never reaches the definition: only the keys the definition had
 * plus `id`, `type`, `position`, `data` (and `source`, `target` for edges) are written back.
 *
 * No dependency on `@xyflow/react` here: `GraphNode` and `GraphEdge` are structurally its `Node` and
 * `Edge`, so the page hands them over as they are and the logic stays testable in plain Node.
 */
import {
  byNodeType,
  edgeRuleBreaks,
  isNodeType,
  NODE_TYPE_DECLARATIONS,
  NODE_TYPES,
  type NodeType
} from "@agentline/api/workflows/NodeTypes"

export { isNodeType, NODE_TYPES, type NodeType } from "@agentline/api/workflows/NodeTypes"

/** What each node type is called in the editor's palette and on the node itself (the catalog's display names). */
export const NODE_TYPE_LABELS: { readonly [T in NodeType]: string } = byNodeType((type) => NODE_TYPE_DECLARATIONS[type].display_name)

/** At most this many of a type in one definition (the catalog's `max_instances`; the server refuses more). */
export const MAX_INSTANCES: { readonly [T in NodeType]?: number } = Object.fromEntries(
  NODE_TYPES.flatMap((type) => {
    const max = NODE_TYPE_DECLARATIONS[type].graph.max_instances
    return max === undefined ? [] : [[type, max]]
  })
)

export type JsonObject = Record<string, unknown>

export interface Position {
  readonly x: number
  readonly y: number
}

export interface GraphNode {
  id: string
  type: NodeType
  position: Position
  data: JsonObject
}

export interface GraphEdge {
  id: string
  source: string
  target: string
  data: JsonObject
  /** Shown on the edge; kept equal to `data.label` by the editor. */
  label?: string
}

/** Keys outside `id/type/position/data` (`source/target` for edges) that the definition carried, by id. */
export interface GraphExtras {
  readonly top: JsonObject
  readonly nodes: ReadonlyMap<string, JsonObject>
  readonly edges: ReadonlyMap<string, JsonObject>
}

export interface Graph {
  readonly nodes: Array<GraphNode>
  readonly edges: Array<GraphEdge>
  readonly extras: GraphExtras
}

const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

const isPosition = (u: unknown): u is Position => isObject(u) && typeof u.x === "number" && typeof u.y === "number"

/** Where a node without a position goes: a column per type family, rows in order (no overlap). */
export const defaultPosition = (index: number): Position => ({ x: 80 + (index % 4) * 280, y: 60 + Math.floor(index / 4) * 180 })

const omit = (object: JsonObject, keys: ReadonlyArray<string>): JsonObject => {
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(object)) if (!keys.includes(key)) out[key] = value
  return out
}

const NODE_KEYS = ["id", "type", "position", "data"]
const EDGE_KEYS = ["id", "source", "target", "data"]

/**
 * The editor's graph of a stored definition. A node of a type the editor does not know cannot be shown
 * or edited faithfully (the server refuses such definitions, so a stored one has none): `toGraph`
 * throws rather than rewrite it silently.
 */
export const toGraph = (definition: JsonObject): Graph => {
  const rawNodes = Array.isArray(definition.nodes) ? definition.nodes : []
  const rawEdges = Array.isArray(definition.edges) ? definition.edges : []
  const nodeExtras = new Map<string, JsonObject>()
  const edgeExtras = new Map<string, JsonObject>()
  const nodes = rawNodes.filter(isObject).map((raw, index): GraphNode => {
    const id = String(raw.id)
    if (!isNodeType(raw.type)) throw new Error(`node '${id}' has type ${JSON.stringify(raw.type)}, which the editor does not know`)
    nodeExtras.set(id, omit(raw, NODE_KEYS))
    return {
      id,
      type: raw.type,
      position: isPosition(raw.position) ? { x: raw.position.x, y: raw.position.y } : defaultPosition(index),
      data: isObject(raw.data) ? { ...raw.data } : {}
    }
  })
  const edges = rawEdges.filter(isObject).map((raw): GraphEdge => {
    const id = String(raw.id)
    edgeExtras.set(id, omit(raw, EDGE_KEYS))
    const data = isObject(raw.data) ? { ...raw.data } : {}
    return {
      id,
      source: String(raw.source),
      target: String(raw.target),
      data,
      ...(typeof data.label === "string" ? { label: data.label } : {})
    }
  })
  return { nodes, edges, extras: { top: omit(definition, ["nodes", "edges"]), nodes: nodeExtras, edges: edgeExtras } }
}

/** The definition to save: the graph's nodes and edges with everything the stored definition had kept. */
export const fromGraph = (graph: Graph): JsonObject => ({
  ...graph.extras.top,
  nodes: graph.nodes.map((node) => ({
    ...(graph.extras.nodes.get(node.id) ?? {}),
    id: node.id,
    type: node.type,
    position: { x: node.position.x, y: node.position.y },
    data: node.data
  })),
  edges: graph.edges.map((edge) => ({
    ...(graph.extras.edges.get(edge.id) ?? {}),
    id: edge.id,
    source: edge.source,
    target: edge.target,
    data: edge.data
  }))
})

/** A fresh id with `prefix` not used by any of `taken` (`agent-1`, `agent-2`, …). */
export const freshId = (prefix: string, taken: Iterable<string>): string => {
  const used = new Set(taken)
  for (let n = 1;; n++) {
    const candidate = `${prefix}-${n}`
    if (!used.has(candidate)) return candidate
  }
}

/** A node as the editor names it: its name, else its id ("?" for none). */
export const nodeName = (node: Pick<GraphNode, "id" | "data"> | undefined): string =>
  node === undefined ? "?" : typeof node.data.name === "string" && node.data.name !== "" ? node.data.name : node.id

/** What a new node of each type starts with: the fields the server requires, so it can be saved once named. */
export const defaultNodeData = (type: NodeType): JsonObject => {
  switch (type) {
    case "startCall":
      return { name: "Start", prompt: "", greeting: "", allow_interrupt: true, add_global_prompt: true }
    case "agentNode":
      return { name: "Agent", prompt: "", allow_interrupt: true, add_global_prompt: true }
    case "endCall":
      return { name: "End call", prompt: "", allow_interrupt: false, add_global_prompt: true }
    case "transfer":
      return { name: "Transfer", target: "", message: "", mode: "cold", timeout: 30 }
    case "globalNode":
      return { name: "Global prompt", prompt: "" }
    case "trigger":
      return { name: "API trigger", enabled: true }
    case "webhook":
      return { name: "Webhook", enabled: true, http_method: "POST", endpoint_url: "", custom_headers: [], payload_template: {} }
    case "qa":
      return { name: "QA review", qa_enabled: true, qa_sample_rate: 100, qa_use_workflow_llm: true }
  }
}

/** Why `type` cannot be added now, or null when it can. */
export const cannotAdd = (type: NodeType, nodes: ReadonlyArray<Pick<GraphNode, "type">>): string | null => {
  const max = MAX_INSTANCES[type]
  if (max === undefined) return null
  const count = nodes.filter((n) => n.type === type).length
  return count >= max ? `An agent has at most ${max} ${NODE_TYPE_LABELS[type]} node` : null
}

/**
 * Where a new node goes: below the lowest node (so an edge from above runs down into it), alternating
 * left and right so two new nodes do not stack; the first one at the top. The editor then moves the
 * view to it, wherever the view was.
 */
export const newNodePosition = (nodes: ReadonlyArray<Pick<GraphNode, "position">>): Position => {
  if (nodes.length === 0) return { x: 80, y: 60 }
  const lowest = nodes.reduce((y, n) => Math.max(y, n.position.y), -Infinity)
  const left = nodes.reduce((x, n) => Math.min(x, n.position.x), Infinity)
  return { x: left + (nodes.length % 2) * 140, y: lowest + 150 }
}

export const addNode = (graph: Graph, type: NodeType, position: Position): { readonly graph: Graph; readonly id: string } => {
  const id = freshId(type, graph.nodes.map((n) => n.id))
  return { graph: { ...graph, nodes: [...graph.nodes, { id, type, position, data: defaultNodeData(type) }] }, id }
}

/** "The Start call node" (one per agent), "An End call node", "A Global prompt node". */
const aNode = (type: NodeType): string => {
  const { max_instances, min_instances } = NODE_TYPE_DECLARATIONS[type].graph
  const label = NODE_TYPE_LABELS[type]
  return `${min_instances === 1 && max_instances === 1 ? "The" : /^[aeiou]/i.test(label) ? "An" : "A"} ${label} node`
}

/**
 * Why an edge from a node of type `source` to one of type `target` is not allowed, or null. The same
 * rules the server applies on save (the catalog's graph constraints); the editor checks them while
 * drawing so an impossible edge is never drawn (the server still has the last word, and its errors
 * appear on the edge).
 */
export const connectionProblem = (source: NodeType, target: NodeType): string | null => {
  const broken = edgeRuleBreaks(source, target)[0]
  if (broken === undefined) return null
  const because = broken.why === undefined ? "" : `: ${broken.why}`
  switch (broken.rule) {
    case "no_edges":
      return `${aNode(broken.type)} cannot have edges${because}`
    case "no_incoming":
      return `${aNode(broken.type)} cannot have incoming edges${because}`
    case "no_outgoing":
      return `${aNode(broken.type)} cannot have outgoing edges${because}`
  }
}

/**
 * A new edge's condition, so it can be saved as drawn (the server requires one) and the person sees
 * what a condition looks like: the conversation is done, for an edge into an End call node; ready for
 * the next step, named by its node, otherwise. The editor asks to reword it.
 */
export const defaultCondition = (target: Pick<GraphNode, "type" | "id" | "data">): string => {
  if (target.type === "endCall") return "The conversation is done and the call can end"
  const name = typeof target.data.name === "string" && target.data.name.trim() !== "" ? target.data.name.trim() : target.id
  return `The conversation is ready for the next step: ${name}`
}

/** Adds an edge between two existing nodes, or says why not. Its label and condition are defaults to reword. */
export const connect = (
  graph: Graph,
  source: string,
  target: string
): { readonly graph: Graph; readonly id: string } | { readonly problem: string } => {
  const from = graph.nodes.find((n) => n.id === source)
  const to = graph.nodes.find((n) => n.id === target)
  if (from === undefined || to === undefined) return { problem: "Both ends of an edge must be nodes of this agent" }
  const problem = connectionProblem(from.type, to.type)
  if (problem !== null) return { problem }
  const id = freshId("edge", graph.edges.map((e) => e.id))
  const label = transitionLabel(to, graph.edges.filter((e) => e.source === source))
  return {
    graph: { ...graph, edges: [...graph.edges, { id, source, target, data: { label, condition: defaultCondition(to) }, label }] },
    id
  }
}

/**
 * The tool name the model sees for an edge (the server's rule): labels from one node must differ after
 * this, or the transition is ambiguous.
 */
export const transitionToolName = (label: string): string => label.toLowerCase().replace(/[^a-z0-9]/g, "_")

/** A label for a new edge to `target` that does not collide with the source's other edges. */
const transitionLabel = (target: GraphNode, siblings: ReadonlyArray<GraphEdge>): string => {
  const base = `go_to_${
    transitionToolName(typeof target.data.name === "string" && target.data.name.trim() !== "" ? target.data.name : target.id)
  }`
  const taken = new Set(siblings.map((e) => transitionToolName(String(e.data.label ?? ""))))
  if (!taken.has(base)) return base
  for (let n = 2;; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`
}

export const removeNodes = (graph: Graph, ids: ReadonlyArray<string>): Graph => ({
  ...graph,
  nodes: graph.nodes.filter((n) => !ids.includes(n.id)),
  edges: graph.edges.filter((e) => !ids.includes(e.source) && !ids.includes(e.target))
})

export const removeEdges = (graph: Graph, ids: ReadonlyArray<string>): Graph => ({
  ...graph,
  edges: graph.edges.filter((e) => !ids.includes(e.id))
})

export const updateNodeData = (graph: Graph, id: string, data: JsonObject): Graph => ({
  ...graph,
  nodes: graph.nodes.map((n) => (n.id === id ? { ...n, data } : n))
})

export const updateEdgeData = (graph: Graph, id: string, data: JsonObject): Graph => ({
  ...graph,
  edges: graph.edges.map((e) => {
    if (e.id !== id) return e
    const { label: _label, ...rest } = e
    return typeof data.label === "string" ? { ...rest, data, label: data.label } : { ...rest, data }
  })
})

/** A new agent's definition: a start node that can be saved as soon as its prompt is written. */
export const starterDefinition = (): JsonObject => ({
  nodes: [{ id: "start", type: "startCall", position: { x: 80, y: 60 }, data: defaultNodeData("startCall") }],
  edges: []
})

// ------------------------------------------------------------------------------------------ template variables

const TEMPLATE = /\{\{\s*([^\s{}|]+)\s*(?:\|([^{}]*))?\}\}/g

/**
 * The template variables the definition's texts use (prompts, greetings, transition speech), in order
 * of first use, with whether each has a default (`{{name | default}}`). Dotted paths
 * (`gathered_context.city`) are values of the call, not variables to fill, and are left out.
 */
export const templateVariables = (definition: JsonObject): Array<{ readonly name: string; readonly hasDefault: boolean }> => {
  const found = new Map<string, boolean>()
  const scan = (text: unknown) => {
    if (typeof text !== "string") return
    for (const match of text.matchAll(TEMPLATE)) {
      const name = match[1]!
      if (name.includes(".")) continue
      found.set(name, (found.get(name) ?? false) || match[2] !== undefined)
    }
  }
  for (const node of Array.isArray(definition.nodes) ? definition.nodes : []) {
    if (!isObject(node) || !isObject(node.data)) continue
    scan(node.data.prompt)
    scan(node.data.greeting)
  }
  for (const edge of Array.isArray(definition.edges) ? definition.edges : []) {
    if (isObject(edge) && isObject(edge.data)) scan(edge.data.transition_speech)
  }
  return [...found].map(([name, hasDefault]) => ({ name, hasDefault }))
}
