/**
 * A 422 of an agent save, sorted by where each problem belongs: on a node (and which of its fields), on
 * an edge, on the definition as a whole, or on another part of the request (`name`, configurations…).
 *
 * The server's items carry `loc = ["body", "workflow_definition", "nodes" | "edges", <id>, <field>]`
 * (the field dotted for nested ones: `extraction_variables.0.name`) and, for definition problems, the
 * reference's `{kind, id, field, message}` as well. `kind/id/field` win when present; otherwise the
 * `loc` path is read, so a request-level item (`["body", "name"]`) lands under `request`.
 */

export interface IssueLike {
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
  readonly kind?: "node" | "edge" | "workflow" | undefined
  readonly id?: string | null | undefined
  readonly field?: string | null | undefined
  readonly message?: string | undefined
}

/** Messages by field; `""` holds the ones about the node or edge as a whole. */
export type FieldMessages = ReadonlyMap<string, ReadonlyArray<string>>

export interface SortedIssues {
  readonly nodes: ReadonlyMap<string, FieldMessages>
  readonly edges: ReadonlyMap<string, FieldMessages>
  /** Problems of the definition as a whole (no start node, two triggers…), or of an item without an id. */
  readonly workflow: ReadonlyArray<string>
  /** Other fields of the request, by their path (`name`, `workflow_configurations.max_call_duration`). */
  readonly request: ReadonlyMap<string, ReadonlyArray<string>>
}

export const noIssues: SortedIssues = { nodes: new Map(), edges: new Map(), workflow: [], request: new Map() }

const push = <K>(map: Map<K, Array<string>>, key: K, message: string) => {
  const list = map.get(key)
  if (list === undefined) map.set(key, [message])
  else if (!list.includes(message)) list.push(message)
}

const pushField = (map: Map<string, Map<string, Array<string>>>, id: string, field: string, message: string) => {
  let fields = map.get(id)
  if (fields === undefined) {
    fields = new Map()
    map.set(id, fields)
  }
  push(fields, field, message)
}

/** Where one item belongs, from its `kind/id/field` or else its `loc`. */
export const locate = (
  issue: IssueLike
):
  | { readonly on: "node" | "edge"; readonly id: string; readonly field: string }
  | { readonly on: "workflow" }
  | { readonly on: "request"; readonly path: string } =>
{
  if (issue.kind !== undefined) {
    if (issue.kind === "workflow" || issue.id === null || issue.id === undefined) return { on: "workflow" }
    return { on: issue.kind, id: issue.id, field: issue.field ?? "" }
  }
  const loc = issue.loc[0] === "body" ? issue.loc.slice(1) : issue.loc
  if (loc[0] === "workflow_definition") {
    const [, collection, id, ...field] = loc
    if ((collection === "nodes" || collection === "edges") && id !== undefined && id !== "?") {
      // A raw schema path names `data.<field>`; editors show the field by its own name.
      const parts = field[0] === "data" ? field.slice(1) : field
      return { on: collection === "nodes" ? "node" : "edge", id: String(id), field: parts.join(".") }
    }
    return { on: "workflow" }
  }
  return { on: "request", path: loc.join(".") }
}

export const sortIssues = (issues: ReadonlyArray<IssueLike>): SortedIssues => {
  const nodes = new Map<string, Map<string, Array<string>>>()
  const edges = new Map<string, Map<string, Array<string>>>()
  const workflow: Array<string> = []
  const request = new Map<string, Array<string>>()
  for (const issue of issues) {
    const message = issue.message ?? issue.msg
    const where = locate(issue)
    switch (where.on) {
      case "node":
        pushField(nodes, where.id, where.field, message)
        break
      case "edge":
        pushField(edges, where.id, where.field, message)
        break
      case "workflow":
        if (!workflow.includes(message)) workflow.push(message)
        break
      case "request":
        push(request, where.path, message)
    }
  }
  return { nodes, edges, workflow, request }
}

/** All messages of one node or edge, field problems included, for a summary on the graph. */
export const allMessages = (fields: FieldMessages | undefined): ReadonlyArray<string> =>
  fields === undefined ? [] : [...fields.values()].flat()

/**
 * The messages for one form field: those of the field itself and of anything inside it
 * (`extraction_variables` shows `extraction_variables.0.name` too).
 */
export const fieldMessages = (fields: FieldMessages | undefined, field: string): ReadonlyArray<string> => {
  if (fields === undefined) return []
  const out: Array<string> = []
  for (const [key, messages] of fields) if (key === field || key.startsWith(`${field}.`)) out.push(...messages)
  return out
}

/** How many problems the sorted issues hold, for the save summary. */
export const issueCount = (sorted: SortedIssues): number =>
  [...sorted.nodes.values(), ...sorted.edges.values()].reduce((n, fields) => n + allMessages(fields).length, 0) +
  sorted.workflow.length +
  [...sorted.request.values()].reduce((n, list) => n + list.length, 0)

/** What `withoutFixed` reads of the graph: the items' ids, ends and data. */
export interface GraphShape {
  readonly nodes: ReadonlyArray<{ readonly id: string; readonly data: Readonly<Record<string, unknown>> }>
  readonly edges: ReadonlyArray<{ readonly id: string; readonly source: string; readonly target: string; readonly data: Readonly<Record<string, unknown>> }>
}

const changedFields = (before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): ReadonlyArray<string> =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))

const settleItems = (
  issues: ReadonlyMap<string, FieldMessages>,
  before: ReadonlyArray<{ readonly id: string; readonly data: Readonly<Record<string, unknown>> }>,
  after: ReadonlyArray<{ readonly id: string; readonly data: Readonly<Record<string, unknown>> }>
): ReadonlyMap<string, FieldMessages> => {
  const now = new Map(after.map((item) => [item.id, item.data]))
  const was = new Map(before.map((item) => [item.id, item.data]))
  let changed = false
  const out = new Map<string, FieldMessages>()
  for (const [id, fields] of issues) {
    const data = now.get(id)
    // A removed item takes its problems with it.
    if (data === undefined) {
      changed = true
      continue
    }
    const edited = changedFields(was.get(id) ?? {}, data)
    const kept = new Map([...fields].filter(([field]) => !edited.some((e) => field === e || field.startsWith(`${e}.`))))
    if (kept.size !== fields.size) changed = true
    if (kept.size > 0) out.set(id, kept)
  }
  return changed ? out : issues
}

const shapeOf = (graph: GraphShape): string =>
  JSON.stringify([graph.nodes.map((n) => n.id).sort(), graph.edges.map((e) => `${e.id}:${e.source}>${e.target}`).sort()])

/**
 * The server's problems that still stand after an edit of the graph (`before` → `after`), so a fixed
 * problem leaves the page at once instead of waiting for the next save: a changed field's problems go
 * (with those nested in it), a removed node or edge takes its problems along, and the definition-wide
 * ones (no end node, two triggers…), which are about the graph's shape, go when nodes or edges are
 * added or removed. What the edit did not touch stays. The same object when nothing went (a drag).
 */
export const withoutFixed = (issues: SortedIssues, before: GraphShape, after: GraphShape): SortedIssues => {
  const nodes = settleItems(issues.nodes, before.nodes, after.nodes)
  const edges = settleItems(issues.edges, before.edges, after.edges)
  const workflow = issues.workflow.length > 0 && shapeOf(before) !== shapeOf(after) ? [] : issues.workflow
  return nodes === issues.nodes && edges === issues.edges && workflow === issues.workflow
    ? issues
    : { ...issues, nodes, edges, workflow }
}
