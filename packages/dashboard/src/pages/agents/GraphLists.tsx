/**
 * The editor's lists of every node and edge, each a button that selects it (the keyboard's way to any
 * part of the graph), with its problem count.
 */
import { type Graph, nodeName, NODE_TYPE_LABELS } from "./definitionGraph.js"
import { allMessages, type SortedIssues } from "./definitionIssues.js"

/** What the side panel edits: a node or an edge, by id. */
export type Selection = { readonly kind: "node" | "edge"; readonly id: string } | null

export const GraphLists = ({ graph, issues, select, selection }: {
  readonly graph: Graph
  readonly issues: SortedIssues
  readonly selection: Selection
  readonly select: (selection: Selection) => void
}) => (
  <>
    <section aria-labelledby="nodes-heading">
      <h2 id="nodes-heading">Nodes</h2>
      <ul className="item-list">
        {graph.nodes.map((n) => {
          const problems = allMessages(issues.nodes.get(n.id)).length
          return (
            <li key={n.id}>
              <button
                type="button"
                aria-pressed={selection?.kind === "node" && selection.id === n.id}
                onClick={() => select({ kind: "node", id: n.id })}
              >
                {NODE_TYPE_LABELS[n.type]}: {nodeName(n)}
                {problems > 0 && <span className="badge badge-bad">{problems} problem{problems === 1 ? "" : "s"}</span>}
              </button>
            </li>
          )
        })}
      </ul>
    </section>
    <section aria-labelledby="edges-heading">
      <h2 id="edges-heading">Edges</h2>
      {graph.edges.length === 0 && <p className="hint">No edges yet.</p>}
      <ul className="item-list">
        {graph.edges.map((e) => {
          const problems = allMessages(issues.edges.get(e.id)).length
          return (
            <li key={e.id}>
              <button
                type="button"
                aria-pressed={selection?.kind === "edge" && selection.id === e.id}
                onClick={() => select({ kind: "edge", id: e.id })}
              >
                {nodeName(graph.nodes.find((n) => n.id === e.source))} → {nodeName(graph.nodes.find((n) => n.id === e.target))}
                {typeof e.data.label === "string" && e.data.label !== "" ? ` (${e.data.label})` : ""}
                {problems > 0 && <span className="badge badge-bad">{problems} problem{problems === 1 ? "" : "s"}</span>}
              </button>
            </li>
          )
        })}
      </ul>
    </section>
  </>
)
