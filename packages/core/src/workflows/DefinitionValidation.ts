/**
 * Checking an agent definition as a whole: every problem, each with the node or edge it belongs to,
 * in the reference's `{kind, id, field, message}` shape, in time linear in the definition's size and
 * within documented bounds on nodes and edges (see docs/security.md). The schemas themselves are
 * `WorkflowDefinition.ts`.
 */
import { Either, Option, ParseResult, Schema, SchemaAST } from "effect"
import { type EdgeRuleBreak, edgeRuleBreaks, NODE_TYPE_DECLARATIONS } from "@agentline/api/workflows/NodeTypes"
import { NODE_SCHEMAS, NODE_TYPES, type NodeType, transitionToolName, WorkflowDefinition, WorkflowEdge, WorkflowNode } from "./WorkflowDefinition.js"

/** One problem with a definition, in the reference's `{kind, id, field, message}` shape. */
export interface DefinitionIssue {
  readonly kind: "node" | "edge" | "workflow"
  /** The node's or edge's id; null for workflow-wide problems and for items without a usable id. */
  readonly id: string | null
  /** The field at fault, without the `data.` prefix (`name`, `prompt`, `label`, `extraction_variables.0.name`). */
  readonly field: string | null
  readonly message: string
}


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
 * The most nodes and edges one definition may have (see docs/security.md). A voice agent has tens of
 * nodes; the bounds keep one save's validation and storage small (validation is linear: ~30 µs a node).
 */
export const MAX_NODES = 1_000
export const MAX_EDGES = 5_000

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
 * `definition` is the decoded definition when `errors` is empty. Otherwise it is what of the input
 * decodes: its other keys, and those of its nodes and edges that are well-formed on their own (none
 * over a size limit), for callers that want to look at it; the graph rules do not hold, so it is
 * not one to run.
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
  // Over a limit, nothing else is looked at: the answer comes at once whatever the size.
  if (nodes.length > MAX_NODES) issue("workflow", null, "nodes", `nodes has ${nodes.length} nodes; at most ${MAX_NODES} are allowed`)
  if (edges.length > MAX_EDGES) issue("workflow", null, "edges", `edges has ${edges.length} edges; at most ${MAX_EDGES} are allowed`)
  if (nodes.length > MAX_NODES || edges.length > MAX_EDGES) {
    return { definition: { ...input, nodes: [], edges: [] }, errors }
  }
  return checkDefinition(input, nodes, edges, errors)
}

/**
 * The checks of `validateDefinition` without the size limits, in time linear in the number of nodes
 * and edges (exported for the benchmark, which measures that on definitions beyond the limits).
 */
export const checkDefinition = (
  input: Record<string, unknown>,
  nodes: ReadonlyArray<unknown>,
  edges: ReadonlyArray<unknown>,
  errors: Array<DefinitionIssue> = []
): { readonly definition: WorkflowDefinition; readonly errors: ReadonlyArray<DefinitionIssue> } => {
  const issue = (kind: DefinitionIssue["kind"], id: string | null, field: string | null, message: string) =>
    void errors.push({ kind, id, field, message })

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
      const sameType = byType.get(type as NodeType)
      if (sameType === undefined) byType.set(type as NodeType, [id])
      else sameType.push(id)
    }
  })

  // Instance limits are properties of the whole definition, as the reference reports them. They and
  // the edge rules below are the node types' graph constraints, as the catalog states them.
  const instances = (type: NodeType) => byType.get(type) ?? []
  for (const type of NODE_TYPES) {
    const { max_instances: max, min_instances: min, why } = NODE_TYPE_DECLARATIONS[type].graph
    const found = instances(type)
    if (min !== undefined && found.length < min) {
      issue(
        "workflow",
        null,
        "nodes",
        `${min === 1 ? `a ${type} node is required` : `at least ${min} ${type} nodes are required, found ${found.length}`}${
          why?.instances === undefined ? "" : `: ${why.instances}`
        }`
      )
    } else if (max !== undefined && found.length > max) {
      issue(
        "workflow",
        null,
        "nodes",
        `${min === max ? "exactly" : "at most"} ${max === 1 ? "one" : max} ${type} node${max === 1 ? " is" : "s are"} allowed, found ${found.length} (${
          found.join(", ")
        })`
      )
    }
  }

  // Edges -------------------------------------------------------------------------------------------
  const edgeIds = new Set<string>()
  const toolNames = new Map<string, string>()
  const incoming = new Map<string, number>()
  const outgoing = new Map<string, number>()
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

    for (const broken of edgeRuleBreaks(sourceType, targetType)) issue("edge", id, broken.end, edgeRuleMessage(broken))
    if (ends.source !== null && sourceType !== undefined) outgoing.set(ends.source, (outgoing.get(ends.source) ?? 0) + 1)
    if (ends.target !== null && targetType !== undefined) incoming.set(ends.target, (incoming.get(ends.target) ?? 0) + 1)

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

  // Bounds other than "none at all" (which the edges above report one by one), per node.
  for (const [nodeId, type] of typeOf) {
    const graph = NODE_TYPE_DECLARATIONS[type].graph
    for (const [direction, count, min, max] of [
      ["incoming", incoming.get(nodeId) ?? 0, graph.min_incoming, graph.max_incoming],
      ["outgoing", outgoing.get(nodeId) ?? 0, graph.min_outgoing, graph.max_outgoing]
    ] as const) {
      if (min !== undefined && count < min) issue("node", nodeId, null, `a ${type} node needs at least ${min} ${direction} edge${min === 1 ? "" : "s"}, it has ${count}`)
      if (max !== undefined && max > 0 && count > max) issue("node", nodeId, null, `a ${type} node takes at most ${max} ${direction} edge${max === 1 ? "" : "s"}, it has ${count}`)
    }
  }

  if (errors.length > 0) {
    return { definition: wellFormedPart(input, nodes, edges), errors }
  }
  const decoded = Schema.decodeUnknownEither(WorkflowDefinition)(input)
  if (Either.isLeft(decoded)) {
    // The checks above mirror the schema; this only fires if the two ever disagree.
    issue("workflow", null, null, ParseResult.TreeFormatter.formatErrorSync(decoded.left))
    return { definition: wellFormedPart(input, nodes, edges), errors }
  }
  return { definition: decoded.right, errors }
}

const decodeNode = Schema.decodeUnknownOption(WorkflowNode)
const decodeEdge = Schema.decodeUnknownOption(WorkflowEdge)

/** The definition without its nodes and edges that do not decode on their own. */
const wellFormedPart = (
  input: Record<string, unknown>,
  nodes: ReadonlyArray<unknown>,
  edges: ReadonlyArray<unknown>
): WorkflowDefinition => ({
  ...input,
  nodes: nodes.flatMap((node) => Option.toArray(decodeNode(node))),
  edges: edges.flatMap((edge) => Option.toArray(decodeEdge(edge)))
})

/** "the startCall node" (one per definition), "an endCall node", "a trigger node". */
const aNode = (type: NodeType): string => {
  const { max_instances, min_instances } = NODE_TYPE_DECLARATIONS[type].graph
  return `${min_instances === 1 && max_instances === 1 ? "the" : /^[aeiou]/i.test(type) ? "an" : "a"} ${type} node`
}

const edgeRuleMessage = (broken: EdgeRuleBreak): string => {
  const because = broken.why === undefined ? "" : `: ${broken.why}`
  switch (broken.rule) {
    case "no_edges":
      return `${aNode(broken.type)} cannot be connected by edges${because}; remove this edge`
    case "no_incoming":
      return `${aNode(broken.type)} cannot have incoming edges${because}`
    case "no_outgoing":
      return `${aNode(broken.type)} cannot have outgoing edges${because}`
  }
}
