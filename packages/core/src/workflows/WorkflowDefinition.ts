/**
 * The agent definition: ReactFlow-style `{nodes, edges}` as the reference documents, checked on every
 * save. Only structure is checked (what makes a definition impossible to run or ambiguous); unknown
 * keys anywhere are kept as sent, so editors can store their own data (viewport, positions, UI flags).
 */
export interface DefinitionIssue {
  readonly kind: "node" | "edge" | "workflow"
  readonly id: string | null
  readonly field: string | null
  readonly message: string
}

export interface WorkflowDefinition {
  readonly nodes: ReadonlyArray<{ readonly id: string; readonly type: string; readonly data: Record<string, unknown> } & Record<string, unknown>>
  readonly edges: ReadonlyArray<
    { readonly id: string; readonly source: string; readonly target: string; readonly data: Record<string, unknown> } & Record<string, unknown>
  >
  readonly [key: string]: unknown
}

export const NODE_TYPES = ["startCall", "agentNode", "endCall", "globalNode", "trigger", "webhook", "qa"] as const
const PROMPTED = new Set(["startCall", "agentNode", "endCall", "globalNode"])
const TRIGGER_PATH = /^[A-Za-z0-9_-]{1,36}$/

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const nonEmpty = (u: unknown) => typeof u === "string" && u.trim() !== ""

/** Every structural problem of the definition, not the first only. */
export const validateDefinition = (input: unknown): { readonly definition: WorkflowDefinition; readonly errors: ReadonlyArray<DefinitionIssue> } => {
  const errors: Array<DefinitionIssue> = []
  const issue = (kind: DefinitionIssue["kind"], id: string | null, field: string | null, message: string) =>
    errors.push({ kind, id, field, message })
  if (!isObject(input)) {
    issue("workflow", null, null, "workflow_definition must be an object with nodes and edges")
    return { definition: { nodes: [], edges: [] }, errors }
  }
  const nodes = Array.isArray(input.nodes) ? input.nodes : (issue("workflow", null, "nodes", "nodes must be an array"), [])
  const edges = Array.isArray(input.edges) ? input.edges : input.edges === undefined ? [] : (issue("workflow", null, "edges", "edges must be an array"), [])

  const ids = new Map<string, string>()
  const count = new Map<string, number>()
  nodes.forEach((node: unknown, index: number) => {
    if (!isObject(node) || !nonEmpty(node.id)) return issue("node", isObject(node) && typeof node.id === "string" ? node.id : `#${index}`, "id", "every node needs a non-empty string id")
    const id = node.id as string
    // A duplicate is reported once; edges keep referring to the first node with that id.
    if (ids.has(id)) return issue("node", id, "id", `duplicate node id '${id}'`)
    const type = node.type
    if (typeof type !== "string" || !(NODE_TYPES as ReadonlyArray<string>).includes(type)) {
      issue("node", id, "type", `unknown node type ${JSON.stringify(type)}; one of ${NODE_TYPES.join(", ")}`)
      return
    }
    ids.set(id, type)
    count.set(type, (count.get(type) ?? 0) + 1)
    const data = isObject(node.data) ? node.data : (issue("node", id, "data", "data must be an object"), {})
    if (!nonEmpty(data.name)) issue("node", id, "name", "name must not be empty")
    if (PROMPTED.has(type) && !nonEmpty(data.prompt)) issue("node", id, "prompt", "prompt must not be empty")
    if (type === "trigger" && data.trigger_path !== undefined && data.trigger_path !== "" && data.trigger_path !== null) {
      if (typeof data.trigger_path !== "string" || !TRIGGER_PATH.test(data.trigger_path)) {
        issue("node", id, "trigger_path", "trigger_path must be 1 to 36 characters of A-Z, a-z, 0-9, _ and -")
      }
    }
  })
  if ((count.get("startCall") ?? 0) !== 1) issue("workflow", null, "nodes", `exactly one startCall node is required (found ${count.get("startCall") ?? 0})`)
  if ((count.get("globalNode") ?? 0) > 1) issue("workflow", null, "nodes", "at most one globalNode is allowed")
  if ((count.get("trigger") ?? 0) > 1) issue("workflow", null, "nodes", "at most one trigger node is allowed")

  const edgeIds = new Set<string>()
  const labels = new Set<string>()
  edges.forEach((edge: unknown, index: number) => {
    if (!isObject(edge) || !nonEmpty(edge.id)) return issue("edge", isObject(edge) && typeof edge.id === "string" ? edge.id : `#${index}`, "id", "every edge needs a non-empty string id")
    const id = edge.id as string
    if (edgeIds.has(id)) issue("edge", id, "id", `duplicate edge id '${id}'`)
    edgeIds.add(id)
    const source = typeof edge.source === "string" ? edge.source : undefined
    const target = typeof edge.target === "string" ? edge.target : undefined
    if (source === undefined || !ids.has(source)) issue("edge", id, "source", `source ${JSON.stringify(edge.source)} is not a node of this definition`)
    if (target === undefined || !ids.has(target)) issue("edge", id, "target", `target ${JSON.stringify(edge.target)} is not a node of this definition`)
    const sourceType = source !== undefined ? ids.get(source) : undefined
    const targetType = target !== undefined ? ids.get(target) : undefined
    if (sourceType === "endCall") issue("edge", id, "source", "an endCall node cannot have outgoing edges")
    if (targetType === "startCall") issue("edge", id, "target", "the startCall node cannot have incoming edges")
    if (targetType === "trigger") issue("edge", id, "target", "a trigger node cannot have incoming edges")
    for (const [t, which] of [[sourceType, "source"], [targetType, "target"]] as const) {
      if (t === "globalNode" || t === "webhook" || t === "qa") issue("edge", id, which, `a ${t} node cannot be connected by edges`)
    }
    const data = isObject(edge.data) ? edge.data : (issue("edge", id, "data", "data must be an object"), {})
    if (!nonEmpty(data.label)) issue("edge", id, "label", "label must not be empty")
    if (!nonEmpty(data.condition)) issue("edge", id, "condition", "condition must not be empty")
    if (nonEmpty(data.label) && source !== undefined) {
      const key = `${source}\u0000${data.label as string}`
      if (labels.has(key)) issue("edge", id, "label", `label '${data.label}' is used twice on edges leaving '${source}'`)
      labels.add(key)
    }
  })
  return { definition: input as unknown as WorkflowDefinition, errors }
}

/** Gives every trigger node without a `trigger_path` a fresh one. */
export const mintTriggerPaths = (definition: WorkflowDefinition, newId: () => string): WorkflowDefinition => ({
  ...definition,
  nodes: definition.nodes.map((node) =>
    node.type === "trigger" && (node.data?.trigger_path === undefined || node.data.trigger_path === "" || node.data.trigger_path === null)
      ? { ...node, data: { ...node.data, trigger_path: newId() } }
      : node
  )
})

export const triggerPaths = (definition: WorkflowDefinition): ReadonlyArray<string> =>
  definition.nodes.flatMap((n) => (n.type === "trigger" && typeof n.data?.trigger_path === "string" ? [n.data.trigger_path] : []))
