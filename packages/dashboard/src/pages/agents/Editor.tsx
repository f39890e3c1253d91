/**
 * The agent's graph editor: the definition drawn with `@xyflow/react` (drag nodes, draw edges between
 * handles, Delete removes the selection), a side panel with the selected node's or edge's form, and
 * keyboard-first controls next to the canvas (add a node, connect two nodes, pick any node or edge
 * from a list), so everything the mouse does has a button too. Save sends the definition; the server
 * keeps it as a new draft version (published with the agent page's Publish button), or answers 422 with
 * every problem, which appear on their nodes, edges and fields.
 */
import {
  applyEdgeChanges,
  applyNodeChanges,
  Background,
  type Connection,
  Controls,
  type Edge,
  type EdgeChange,
  MarkerType,
  type NodeChange,
  ReactFlow,
  type ReactFlowInstance
} from "@xyflow/react"
import "@xyflow/react/dist/style.css"
import { WorkflowId } from "@agentline/api/Ids"
import type { Workflow } from "@agentline/api/workflows/Workflow"
import { Either } from "effect"
import { useCallback, useEffect, useMemo, useRef, useState } from "react"
import { client } from "../../api/client.js"
import { useAction } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import {
  addNode,
  cannotAdd,
  connect,
  connectionProblem,
  fromGraph,
  type Graph,
  newNodePosition,
  nodeName,
  type GraphEdge,
  type GraphNode,
  type JsonObject,
  NODE_TYPE_LABELS,
  NODE_TYPES,
  type NodeType,
  removeEdges,
  removeNodes,
  toGraph,
  updateEdgeData,
  updateNodeData
} from "./definitionGraph.js"
import { allMessages, issueCount, noIssues, type SortedIssues, sortIssues, withoutFixed } from "./definitionIssues.js"
import { type FlowNode, handles, IssuesContext, nodeTypes } from "./FlowNode.js"
import { GraphLists, type Selection } from "./GraphLists.js"
import { EDGE_FIELDS, NODE_FIELDS } from "./nodeFields.js"
import { DataForm } from "./NodeForm.js"
import { Field } from "./ui.js"


interface EditorProps {
  readonly workflow: Workflow
  readonly onSaved: (message: string) => void
  /** Told whether the editor holds unsaved changes (publishing takes the saved draft only). */
  readonly onDirtyChange?: ((dirty: boolean) => void) | undefined
}

export const Editor = ({ onDirtyChange, onSaved, workflow }: EditorProps) => {
  const initial = useMemo(() => {
    try {
      return { graph: toGraph(workflow.workflow_definition) } as const
    } catch (error) {
      return { problem: error instanceof Error ? error.message : String(error) } as const
    }
  }, [workflow.workflow_definition])
  if ("problem" in initial) return <p className="error" role="alert">This definition cannot be edited here: {initial.problem}</p>
  return <GraphEditor workflow={workflow} initial={initial.graph} onSaved={onSaved} onDirtyChange={onDirtyChange} />
}

const GraphEditor = ({ initial, onDirtyChange, onSaved, workflow }: EditorProps & { readonly initial: Graph }) => {
  const [graph, setGraph] = useState<Graph>(initial)
  const [selection, setSelection] = useState<Selection>(null)
  const [issues, setIssues] = useState<SortedIssues>(noIssues)
  const [notice, setNotice] = useState<string | null>(null)
  const [newType, setNewType] = useState<NodeType>("agentNode")
  const [edgeFrom, setEdgeFrom] = useState("")
  const [edgeTo, setEdgeTo] = useState("")
  const save = useAction((definition: JsonObject) =>
    client.workflows.update({ path: { workflow_id: WorkflowId.make(workflow.id) }, payload: { workflow_definition: definition } })
  )

  const [flow, setFlow] = useState<ReactFlowInstance<FlowNode, Edge<JsonObject>> | null>(null)
  // An edit takes the server's problems it fixed off the page, and the last save's failure with them.
  const before = useRef(graph)
  useEffect(() => {
    const previous = before.current
    if (previous === graph) return
    setIssues((current) => withoutFixed(current, previous, graph))
    save.reset()
    before.current = graph
  }, [graph, save.reset])

  const stored = useMemo(() => JSON.stringify(fromGraph(initial)), [initial])
  const dirty = JSON.stringify(fromGraph(graph)) !== stored
  useEffect(() => {
    onDirtyChange?.(dirty)
  }, [dirty, onDirtyChange])
  useEffect(() => () => onDirtyChange?.(false), [onDirtyChange]) // leaving the editor leaves no unsaved changes

  // The selection is this editor's (the side lists set it too); React Flow's own select changes (a click,
  // or Enter on a node focused with Tab) are turned into it, and its `selected` flags are drawn from it.
  const onNodesChange = useCallback((changes: Array<NodeChange<FlowNode>>) => {
    const picked = changes.find((c) => c.type === "select" && c.selected)
    if (picked !== undefined && "id" in picked) setSelection({ kind: "node", id: picked.id })
    setGraph((g) => {
      const nodes = applyNodeChanges(changes, g.nodes as Array<FlowNode>) as unknown as Array<GraphNode>
      const removed = changes.flatMap((c) => (c.type === "remove" ? [c.id] : []))
      return removed.length > 0 ? removeNodes({ ...g, nodes }, removed) : { ...g, nodes }
    })
  }, [])
  const onEdgesChange = useCallback((changes: Array<EdgeChange<Edge<JsonObject>>>) => {
    const picked = changes.find((c) => c.type === "select" && c.selected)
    if (picked !== undefined && "id" in picked) setSelection({ kind: "edge", id: picked.id })
    setGraph((g) => ({ ...g, edges: applyEdgeChanges(changes, g.edges as Array<Edge<JsonObject>>) as unknown as Array<GraphEdge> }))
  }, [])
  const link = useCallback((source: string, target: string) => {
    const result = connect(graph, source, target)
    if ("problem" in result) return setNotice(result.problem)
    setGraph(result.graph)
    setSelection({ kind: "edge", id: result.id })
    const ends = `${nodeName(graph.nodes.find((n) => n.id === source))} to ${nodeName(graph.nodes.find((n) => n.id === target))}`
    setNotice(`Edge added from ${ends}: its condition is a default; reword it to say when the conversation takes this edge.`)
  }, [graph])
  const onConnect = useCallback((c: Connection) => link(c.source, c.target), [link])
  const isValidConnection = useCallback((c: Connection | Edge) => {
    const source = graph.nodes.find((n) => n.id === c.source)
    const target = graph.nodes.find((n) => n.id === c.target)
    return source !== undefined && target !== undefined && connectionProblem(source.type, target.type) === null
  }, [graph.nodes])

  const add = () => {
    const problem = cannotAdd(newType, graph.nodes)
    if (problem !== null) return setNotice(problem)
    const position = newNodePosition(graph.nodes)
    const { graph: next, id } = addNode(graph, newType, position)
    setGraph(next)
    // Wherever the view was, it moves to the new node (its centre; nodes are about 180 × 60).
    void flow?.setCenter(position.x + 90, position.y + 30, { zoom: Math.min(1, flow.getZoom()), duration: 200 })
    setSelection({ kind: "node", id })
    setNotice(`${NODE_TYPE_LABELS[newType]} node added: fill in its form.`)
  }

  const submit = async () => {
    setNotice(null)
    const result = await save.run(fromGraph(graph))
    if (Either.isRight(result)) {
      setIssues(noIssues)
      onSaved(`Saved as draft version ${result.right.version_number ?? "?"}: test calls run it; publish it to make campaigns run it.`)
    } else {
      const error = result.left as { _tag?: string; detail?: unknown }
      if (error._tag === "ValidationError" && Array.isArray(error.detail)) {
        const sorted = sortIssues(error.detail)
        setIssues(sorted)
        const first = [...sorted.nodes.keys()][0]
        const firstEdge = [...sorted.edges.keys()][0]
        if (first !== undefined) setSelection({ kind: "node", id: first })
        else if (firstEdge !== undefined) setSelection({ kind: "edge", id: firstEdge })
      }
    }
  }

  const selectedNode = selection?.kind === "node" ? graph.nodes.find((n) => n.id === selection.id) : undefined
  const selectedEdge = selection?.kind === "edge" ? graph.edges.find((e) => e.id === selection.id) : undefined

  const flowNodes = useMemo(
    () => (graph.nodes as Array<FlowNode>).map((n) => ({ ...n, selected: selection?.kind === "node" && selection.id === n.id })),
    [graph.nodes, selection]
  )
  const flowEdges = useMemo(
    () =>
      (graph.edges as Array<Edge<JsonObject>>).map((e) => ({
        ...e,
        selected: selection?.kind === "edge" && selection.id === e.id,
        markerEnd: { type: MarkerType.ArrowClosed },
        ...(issues.edges.has(e.id) ? { className: "has-issues" } : {})
      })),
    [graph.edges, selection, issues]
  )

  const count = issueCount(issues)
  const isolated = (type: NodeType) => !handles(type).source && !handles(type).target

  return (
    <IssuesContext.Provider value={issues}>
      <div className="editor">
        <div className="editor-toolbar" role="group" aria-label="Editor actions">
          <button type="button" className="primary" onClick={submit} disabled={save.pending || !dirty}>
            {save.pending ? "Saving…" : "Save draft"}
          </button>
          <button
            type="button"
            onClick={() => {
              setGraph(initial)
              setIssues(noIssues)
              setSelection(null)
              setNotice("Changes discarded.")
            }}
            disabled={!dirty}
          >
            Discard changes
          </button>
          <span className="hint">{dirty ? "Unsaved changes" : `Version ${workflow.version_number ?? "?"} — no changes`}</span>
        </div>
        <p role="status" className="editor-status">{notice ?? ""}</p>
        {count > 0 && (
          <div className="error" role="alert">
            <p>The server found {count} problem{count === 1 ? "" : "s"}; they are marked on the nodes and edges below.</p>
            {issues.workflow.length > 0 && <ul>{issues.workflow.map((m) => <li key={m}>{m}</li>)}</ul>}
            {issues.request.size > 0 && (
              <ul>
                {[...issues.request].map(([path, messages]) => (
                  <li key={path}>
                    <code>{path}</code> {messages.join(" ")}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
        {count === 0 && save.error !== undefined && <ApiError error={save.error} title="Not saved" />}

        <div className="editor-body">
          <div
            className="editor-canvas"
            aria-label="Agent graph (drag nodes, draw edges from a node's bottom handle to another's top handle)"
            role="region"
          >
            <ReactFlow
              nodes={flowNodes}
              edges={flowEdges}
              nodeTypes={nodeTypes}
              onNodesChange={onNodesChange}
              onEdgesChange={onEdgesChange}
              onConnect={onConnect}
              isValidConnection={isValidConnection}
              onNodeClick={(_, node) => setSelection({ kind: "node", id: node.id })}
              onEdgeClick={(_, edge) => setSelection({ kind: "edge", id: edge.id })}
              onPaneClick={() => setSelection(null)}
              onInit={setFlow}
              fitView
              fitViewOptions={{ padding: 0.2, maxZoom: 1 }}
              deleteKeyCode={["Delete", "Backspace"]}
              proOptions={{ hideAttribution: true }}
            >
              <Background />
              <Controls />
            </ReactFlow>
          </div>

          <aside className="editor-panel" aria-label="Selected item">
            {selectedNode !== undefined && (
              <section>
                <h2>{NODE_TYPE_LABELS[selectedNode.type]}: {nodeName(selectedNode)}</h2>
                {allMessages(issues.nodes.get(selectedNode.id)).length > 0 && (
                  <ul className="field-error" aria-label="Problems with this node">
                    {allMessages(issues.nodes.get(selectedNode.id)).map((m) => <li key={m}>{m}</li>)}
                  </ul>
                )}
                {isolated(selectedNode.type) && <p className="hint">This node is not connected to others: it applies to the whole call.</p>}
                <DataForm
                  key={selectedNode.id}
                  fields={NODE_FIELDS[selectedNode.type]}
                  data={selectedNode.data}
                  issues={issues.nodes.get(selectedNode.id)}
                  onChange={(data) => setGraph((g) => updateNodeData(g, selectedNode.id, data))}
                />
                <div className="actions">
                  <button
                    type="button"
                    className="danger"
                    onClick={() => {
                      setGraph((g) => removeNodes(g, [selectedNode.id]))
                      setSelection(null)
                      setNotice(`Node ${nodeName(selectedNode)} removed.`)
                    }}
                  >
                    Remove node
                  </button>
                </div>
              </section>
            )}
            {selectedEdge !== undefined && (
              <section>
                <h2>
                  Edge: {nodeName(graph.nodes.find((n) => n.id === selectedEdge.source))} →{" "}
                  {nodeName(graph.nodes.find((n) => n.id === selectedEdge.target))}
                </h2>
                {allMessages(issues.edges.get(selectedEdge.id)).length > 0 && (
                  <ul className="field-error" aria-label="Problems with this edge">
                    {allMessages(issues.edges.get(selectedEdge.id)).map((m) => <li key={m}>{m}</li>)}
                  </ul>
                )}
                <DataForm
                  key={selectedEdge.id}
                  fields={EDGE_FIELDS}
                  data={selectedEdge.data}
                  issues={issues.edges.get(selectedEdge.id)}
                  onChange={(data) => setGraph((g) => updateEdgeData(g, selectedEdge.id, data))}
                />
                <div className="actions">
                  <button
                    type="button"
                    className="danger"
                    onClick={() => {
                      setGraph((g) => removeEdges(g, [selectedEdge.id]))
                      setSelection(null)
                      setNotice("Edge removed.")
                    }}
                  >
                    Remove edge
                  </button>
                </div>
              </section>
            )}
            {selection === null && <p className="hint">Select a node or an edge, on the graph or in the lists below, to edit it.</p>}
          </aside>
        </div>

        <div className="editor-controls">
          <section aria-labelledby="add-node-heading">
            <h2 id="add-node-heading">Add a node</h2>
            <div className="inline-form">
              <Field label="Node type">
                {(props) => (
                  <select {...props} value={newType} onChange={(e) => setNewType(e.target.value as NodeType)}>
                    {NODE_TYPES.map((t) => (
                      <option key={t} value={t} disabled={cannotAdd(t, graph.nodes) !== null}>{NODE_TYPE_LABELS[t]}</option>
                    ))}
                  </select>
                )}
              </Field>
              <button type="button" onClick={add}>Add node</button>
            </div>
          </section>
          <section aria-labelledby="add-edge-heading">
            <h2 id="add-edge-heading">Connect two nodes</h2>
            <div className="inline-form">
              <Field label="From">
                {(props) => (
                  <select {...props} value={edgeFrom} onChange={(e) => setEdgeFrom(e.target.value)}>
                    <option value="">Choose a node</option>
                    {graph.nodes.filter((n) => handles(n.type).source).map((n) => <option key={n.id} value={n.id}>{nodeName(n)}</option>)}
                  </select>
                )}
              </Field>
              <Field label="To">
                {(props) => (
                  <select {...props} value={edgeTo} onChange={(e) => setEdgeTo(e.target.value)}>
                    <option value="">Choose a node</option>
                    {graph.nodes.filter((n) => handles(n.type).target).map((n) => <option key={n.id} value={n.id}>{nodeName(n)}</option>)}
                  </select>
                )}
              </Field>
              <button type="button" onClick={() => link(edgeFrom, edgeTo)} disabled={edgeFrom === "" || edgeTo === ""}>Add edge</button>
            </div>
          </section>
          <GraphLists graph={graph} issues={issues} selection={selection} select={setSelection} />
        </div>
      </div>
    </IssuesContext.Provider>
  )
}
