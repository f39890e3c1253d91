import { describe, expect, it } from "@effect/vitest"
import { validateDefinition } from "@agentline/core/workflows/DefinitionValidation"
import {
  addNode,
  cannotAdd,
  connect,
  connectionProblem,
  defaultCondition,
  defaultNodeData,
  fromGraph,
  type Graph,
  newNodePosition,
  NODE_TYPES,
  removeEdges,
  removeNodes,
  starterDefinition,
  templateVariables,
  toGraph,
  updateEdgeData,
  updateNodeData
} from "../src/pages/agents/definitionGraph.js"
import { allMessages, fieldMessages, issueCount, locate, sortIssues, withoutFixed } from "../src/pages/agents/definitionIssues.js"
import { applyInput, displayValue, EDGE_FIELDS, NODE_FIELDS, rowsOf, withRows } from "../src/pages/agents/nodeFields.js"

const stored = {
  viewport: { x: 1, y: 2, zoom: 0.5 },
  nodes: [
    { id: "start", type: "startCall", position: { x: 10, y: 20 }, data: { name: "Start", prompt: "Hi {{first_name}}", custom: 1 }, width: 200 },
    { id: "end", type: "endCall", data: { name: "Bye", prompt: "Say bye to {{ first_name | friend }}" } }
  ],
  edges: [{ id: "e1", source: "start", target: "end", data: { label: "done", condition: "when done", extra: true }, animated: true }]
}

describe("definition ⇄ graph", () => {
  it("keeps every key of the stored definition through a round trip", () => {
    const graph = toGraph(stored)
    const back = fromGraph(graph)
    expect(back.viewport).toEqual(stored.viewport)
    expect(back.nodes).toEqual([
      stored.nodes[0],
      // A node without a position gets one (the editor needs it); nothing else changes.
      { ...stored.nodes[1], position: graph.nodes[1]!.position }
    ])
    expect(back.edges).toEqual(stored.edges)
  })

  it("never writes the editor's own node keys back", () => {
    const graph = toGraph(stored)
    const touched: Graph = {
      ...graph,
      nodes: graph.nodes.map((n) => Object.assign({}, n, { selected: true, measured: { width: 1, height: 2 }, dragging: false }))
    }
    const back = fromGraph(touched) as { nodes: Array<Record<string, unknown>> }
    for (const node of back.nodes) {
      expect(node).not.toHaveProperty("selected")
      expect(node).not.toHaveProperty("measured")
      expect(node).not.toHaveProperty("dragging")
    }
  })

  it("places nodes without a position apart from each other", () => {
    const graph = toGraph({ nodes: [0, 1, 2, 3, 4].map((i) => ({ id: `n${i}`, type: "agentNode", data: {} })), edges: [] })
    const spots = new Set(graph.nodes.map((n) => `${n.position.x},${n.position.y}`))
    expect(spots.size).toBe(5)
  })

  it("refuses a node type it cannot edit rather than rewrite it", () => {
    expect(() => toGraph({ nodes: [{ id: "x", type: "mystery", data: {} }], edges: [] })).toThrow(/mystery/)
  })

  it("shows edge labels from their data and keeps them in step", () => {
    const graph = toGraph(stored)
    expect(graph.edges[0]!.label).toBe("done")
    const updated = updateEdgeData(graph, "e1", { label: "finished", condition: "c" })
    expect(updated.edges[0]!.label).toBe("finished")
    expect(fromGraph(updated).edges).toEqual([{ ...stored.edges[0], data: { label: "finished", condition: "c" } }])
  })
})

describe("editing the graph", () => {
  it("adds nodes with fresh ids and the type's defaults", () => {
    const first = addNode(toGraph(starterDefinition()), "agentNode", { x: 0, y: 0 })
    const second = addNode(first.graph, "agentNode", { x: 0, y: 0 })
    expect(first.id).not.toBe(second.id)
    expect(second.graph.nodes.find((n) => n.id === second.id)!.data).toEqual(defaultNodeData("agentNode"))
  })

  it("limits start, global and trigger nodes to one each", () => {
    const graph = toGraph(starterDefinition())
    expect(cannotAdd("startCall", graph.nodes)).toMatch(/at most 1/)
    expect(cannotAdd("agentNode", graph.nodes)).toBeNull()
    expect(cannotAdd("trigger", graph.nodes)).toBeNull()
    const withTrigger = addNode(graph, "trigger", { x: 0, y: 0 }).graph
    expect(cannotAdd("trigger", withTrigger.nodes)).not.toBeNull()
  })

  it("allows exactly the edges the server allows", () => {
    // Build every pair as a one-edge definition and compare with the server's own validation.
    for (const source of NODE_TYPES) {
      for (const target of NODE_TYPES) {
        const nodes = [
          { id: "s", type: source, data: { ...defaultNodeData(source), prompt: "p", name: "S" } },
          { id: "t", type: target, data: { ...defaultNodeData(target), prompt: "p", name: "T" } },
          ...(source !== "startCall" && target !== "startCall" ? [{ id: "start", type: "startCall", data: { name: "Start", prompt: "p" } }] : [])
        ]
        const server = validateDefinition({ nodes, edges: [{ id: "e", source: "s", target: "t", data: { label: "go", condition: "c" } }] })
        const edgeErrors = server.errors.filter((e) => e.kind === "edge")
        // Two start nodes is a separate (workflow) problem; only the edge's own verdict is compared.
        expect({ source, target, allowed: connectionProblem(source, target) === null })
          .toEqual({ source, target, allowed: edgeErrors.length === 0 })
      }
    }
  })

  it("connects two nodes with a label unique among the source's edges", () => {
    let graph = toGraph(starterDefinition())
    const a = addNode(graph, "agentNode", { x: 0, y: 0 })
    graph = a.graph
    const first = connect(graph, "start", a.id)
    if (!("graph" in first)) throw new Error(first.problem)
    const second = connect(first.graph, "start", a.id)
    if (!("graph" in second)) throw new Error(second.problem)
    const labels = second.graph.edges.map((e) => e.data.label)
    expect(new Set(labels).size).toBe(2)
    expect(connect(second.graph, a.id, "start")).toEqual({ problem: expect.stringMatching(/incoming/) })
    expect(connect(second.graph, "start", "nowhere")).toEqual({ problem: expect.any(String) })
  })

  it("removes a node's edges with it", () => {
    const graph = toGraph(stored)
    const after = removeNodes(graph, ["end"])
    expect(after.nodes.map((n) => n.id)).toEqual(["start"])
    expect(after.edges).toEqual([])
  })

  it("a starter agent with its prompt written, and a two-node agent built in the editor, pass the server's validation", () => {
    const start = toGraph(starterDefinition())
    const named = updateNodeData(start, "start", { ...start.nodes[0]!.data, prompt: "Greet the caller" })
    expect(validateDefinition(fromGraph(named)).errors).toEqual([])
    const added = addNode(named, "endCall", { x: 300, y: 0 })
    const withPrompt = updateNodeData(added.graph, added.id, { ...added.graph.nodes.at(-1)!.data, prompt: "Say goodbye" })
    const linked = connect(withPrompt, "start", added.id)
    if (!("graph" in linked)) throw new Error(linked.problem)
    const edge = linked.graph.edges[0]!
    // A fresh edge has a default condition, so the graph can be saved as drawn.
    expect(edge.data.condition).toBe("The conversation is done and the call can end")
    expect(validateDefinition(fromGraph(linked.graph)).errors).toEqual([])
    const done = updateEdgeData(linked.graph, edge.id, { ...edge.data, condition: "The caller is done" })
    expect(validateDefinition(fromGraph(done)).errors).toEqual([])
    // An emptied condition is what the server points at.
    const emptied = updateEdgeData(linked.graph, edge.id, { ...edge.data, condition: "" })
    expect(validateDefinition(fromGraph(emptied)).errors.map((e) => [e.kind, e.id, e.field])).toEqual([["edge", edge.id, "condition"]])
  })

  it("names the next step in a new edge's default condition, and places new nodes below the others without stacking", () => {
    let graph = toGraph(starterDefinition())
    const a = addNode(graph, "agentNode", newNodePosition(graph.nodes))
    graph = updateNodeData(a.graph, a.id, { ...a.graph.nodes.at(-1)!.data, name: "Qualify" })
    const linked = connect(graph, "start", a.id)
    if (!("graph" in linked)) throw new Error(linked.problem)
    expect(linked.graph.edges[0]!.data.condition).toBe("The conversation is ready for the next step: Qualify")
    expect(defaultCondition({ id: "n", type: "agentNode", data: { name: " " } })).toBe("The conversation is ready for the next step: n")
    expect(newNodePosition([])).toEqual({ x: 80, y: 60 })
    const b = addNode(linked.graph, "endCall", newNodePosition(linked.graph.nodes))
    const positions = b.graph.nodes.map((n) => n.position)
    // Each new node is below every earlier one, and no two share a spot.
    expect(positions[1]!.y).toBeGreaterThan(positions[0]!.y)
    expect(positions[2]!.y).toBeGreaterThan(positions[1]!.y)
    expect(new Set(positions.map((p) => `${p.x},${p.y}`)).size).toBe(3)
  })

  it("finds the template variables the texts use", () => {
    expect(templateVariables({
      nodes: [...stored.nodes, { id: "x", type: "agentNode", data: { prompt: "{{gathered_context.city}} {{plan}}" } }],
      edges: [{ id: "e", data: { transition_speech: "One moment {{first_name}}, {{agent_name|Sam}}" } }]
    })).toEqual([
      { name: "first_name", hasDefault: true },
      { name: "plan", hasDefault: false },
      { name: "agent_name", hasDefault: true }
    ])
  })
})

describe("422 issues on the graph", () => {
  it("sorts the server's own issues onto the nodes and edges they name", () => {
    const { errors } = validateDefinition({
      nodes: [
        { id: "start", type: "startCall", data: { name: "", prompt: "p", extraction_variables: [{ name: "", type: "string" }] } },
        { id: "a", type: "agentNode", data: { name: "A", prompt: "" } },
        { id: "t1", type: "trigger", data: { name: "T", trigger_path: "bad path!" } },
        { id: "t2", type: "trigger", data: { name: "T2" } }
      ],
      edges: [{ id: "e1", source: "start", target: "a", data: { label: "", condition: "c" } }]
    })
    // As the server sends them (Workflows.ts `toIssue`): loc plus kind/id/field.
    const wire = errors.map((e) => ({
      loc: ["body", "workflow_definition", ...(e.kind === "workflow" ? [] : [e.kind === "node" ? "nodes" : "edges", e.id ?? "?"]), ...(e.field ? [e.field] : [])],
      msg: e.message,
      kind: e.kind,
      id: e.id,
      field: e.field,
      message: e.message
    }))
    const sorted = sortIssues(wire)
    expect([...sorted.nodes.get("start")!.keys()].sort()).toEqual(["extraction_variables.0.name", "name"])
    expect(fieldMessages(sorted.nodes.get("start"), "extraction_variables")).toHaveLength(1)
    expect(fieldMessages(sorted.nodes.get("a"), "prompt")).toHaveLength(1)
    expect(fieldMessages(sorted.nodes.get("t1"), "trigger_path")).toHaveLength(1)
    expect(fieldMessages(sorted.edges.get("e1"), "label")).toHaveLength(1)
    expect(sorted.workflow).toEqual([expect.stringMatching(/at most one trigger/)])
    expect(issueCount(sorted)).toBe(wire.length)
    // The same items without kind/id/field land in the same places from their loc alone.
    const fromLoc = sortIssues(wire.map(({ loc, msg }) => ({ loc, msg })))
    expect([...fromLoc.nodes.keys()].sort()).toEqual([...sorted.nodes.keys()].sort())
    expect([...fromLoc.edges.keys()]).toEqual(["e1"])
    expect(fromLoc.workflow).toEqual(sorted.workflow)
  })

  it("reads raw schema paths and request-level items", () => {
    expect(locate({ loc: ["body", "workflow_definition", "nodes", "n1", "data", "prompt"], msg: "m" }))
      .toEqual({ on: "node", id: "n1", field: "prompt" })
    expect(locate({ loc: ["body", "workflow_definition", "edges", "?"], msg: "m" })).toEqual({ on: "workflow" })
    expect(locate({ loc: ["body", "name"], msg: "m" })).toEqual({ on: "request", path: "name" })
    expect(locate({ loc: [], msg: "m", kind: "node", id: null, field: "id" })).toEqual({ on: "workflow" })
    const sorted = sortIssues([
      { loc: ["body", "name"], msg: "name must not be empty" },
      { loc: ["body", "workflow_definition", "nodes", "n1"], msg: "n1 is odd" },
      { loc: ["body", "workflow_definition", "nodes", "n1"], msg: "n1 is odd" }
    ])
    expect(sorted.request.get("name")).toEqual(["name must not be empty"])
    // Duplicates are shown once; the node-wide message sits under "".
    expect(allMessages(sorted.nodes.get("n1"))).toEqual(["n1 is odd"])
  })
})

describe("node forms", () => {
  it("offers every required field of each node type and of edges", () => {
    for (const type of NODE_TYPES) {
      const names = NODE_FIELDS[type].map((f) => f.name)
      expect(names).toContain("name")
      if (["startCall", "agentNode", "endCall", "globalNode"].includes(type)) expect(names).toContain("prompt")
    }
    expect(EDGE_FIELDS.filter((f) => f.required).map((f) => f.name)).toEqual(["label", "condition"])
  })

  it("every form field value the form can produce is one the server accepts for that type", () => {
    // Fill every field with a value of its kind and ask the server's validation.
    for (const type of NODE_TYPES) {
      let data: Record<string, unknown> = {}
      for (const field of NODE_FIELDS[type]) {
        const input = field.kind === "checkbox"
          ? true
          : field.kind === "select"
          ? field.options![0]!.value
          : field.kind === "number"
          ? String(field.min ?? 1)
          : field.kind === "json" || field.kind === "tool-filters"
          ? "{\"a\": [\"b\"]}"
          : field.kind === "lines" || field.kind === "tools"
          ? "x\ny"
          : field.name === "trigger_path"
          ? "my-trigger"
          : field.kind === "rows"
          ? ""
          : field.name === "target"
          ? field.placeholder ?? "+15551234567" // a transfer target: what its placeholder shows is a valid one
          : "text"
        const result = applyInput(data, field, input)
        if (!("data" in result)) throw new Error(result.error)
        data = result.data
      }
      const nodes = [{ id: "n", type, data }, ...(type === "startCall" ? [] : [{ id: "s", type: "startCall", data: { name: "S", prompt: "p" } }])]
      expect({ type, errors: validateDefinition({ nodes, edges: [] }).errors }).toEqual({ type, errors: [] })
    }
  })

  it("converts inputs both ways and says when an input is not a value yet", () => {
    const number = NODE_FIELDS.qa.find((f) => f.name === "qa_sample_rate")!
    expect(applyInput({}, number, "50")).toEqual({ data: { qa_sample_rate: 50 } })
    expect(applyInput({ qa_sample_rate: 5 }, number, "")).toEqual({ data: {} })
    expect(applyInput({}, number, "abc")).toEqual({ error: expect.stringMatching(/number/) })
    const json = NODE_FIELDS.webhook.find((f) => f.name === "payload_template")!
    expect(applyInput({}, json, "[1]")).toEqual({ error: expect.stringMatching(/object/) })
    expect(applyInput({}, json, "{")).toEqual({ error: expect.stringMatching(/JSON/) })
    expect(displayValue({ payload_template: { a: 1 } }, json)).toBe("{\n  \"a\": 1\n}")
    const lines = NODE_FIELDS.agentNode.find((f) => f.name === "tool_uuids")!
    expect(applyInput({}, lines, " a \n\n b ")).toEqual({ data: { tool_uuids: ["a", "b"] } })
    expect(displayValue({ tool_uuids: ["a", "b"] }, lines)).toBe("a\nb")
    // A required text field emptied stays as "" so the server names it; an optional one is removed.
    const prompt = NODE_FIELDS.agentNode.find((f) => f.name === "prompt")!
    expect(applyInput({ prompt: "x" }, prompt, "")).toEqual({ data: { prompt: "" } })
    const greeting = NODE_FIELDS.startCall.find((f) => f.name === "greeting")!
    expect(applyInput({ greeting: "x" }, greeting, "")).toEqual({ data: {} })
    const keep = { name: "n", unknown_key: [1] }
    expect(applyInput(keep, prompt, "p")).toEqual({ data: { name: "n", unknown_key: [1], prompt: "p" } })
  })

  it("edits extraction variables as rows", () => {
    const field = NODE_FIELDS.agentNode.find((f) => f.name === "extraction_variables")!
    const data = { extraction_variables: [{ name: "city", type: "string", prompt: "Where" }, { name: "age", type: "number" }] }
    const rows = rowsOf(data, field)
    expect(rows).toEqual([{ name: "city", type: "string", prompt: "Where" }, { name: "age", type: "number", prompt: "" }])
    expect(withRows(data, field, rows)).toEqual(data)
    expect(withRows(data, field, [])).toEqual({})
  })
})

describe("the server's problems after an edit", () => {
  const graph = toGraph(stored)
  const issues = sortIssues([
    { loc: ["body", "workflow_definition", "edges", "e1", "condition"], msg: "condition must not be empty" },
    { loc: ["body", "workflow_definition", "nodes", "end", "prompt"], msg: "prompt must not be empty" },
    { loc: ["body", "workflow_definition", "nodes", "start", "extraction_variables.0.name"], msg: "name must not be empty" },
    { loc: ["body", "workflow_definition"], msg: "An agent needs an End call node", kind: "workflow", id: null, field: null },
    { loc: ["body", "name"], msg: "name must not be empty" }
  ])

  it("an edited field's problems go at once; the others stay", () => {
    const fixed = updateEdgeData(graph, "e1", { ...graph.edges[0]!.data, condition: "When done" })
    const after = withoutFixed(issues, graph, fixed)
    expect(after.edges.size).toBe(0)
    expect(issueCount(after)).toBe(issueCount(issues) - 1)
    expect(allMessages(after.nodes.get("end"))).toEqual(["prompt must not be empty"])
    // A problem nested in a field goes when the field changes.
    const start = graph.nodes[0]!
    const vars = updateNodeData(graph, "start", { ...start.data, extraction_variables: [{ name: "city" }] })
    expect(withoutFixed(issues, graph, vars).nodes.has("start")).toBe(false)
  })

  it("a removed node or edge takes its problems along; a change of shape clears the definition-wide ones", () => {
    const after = withoutFixed(issues, graph, removeNodes(graph, ["end"]))
    expect(after.nodes.has("end")).toBe(false)
    expect(after.edges.has("e1")).toBe(false)
    expect(after.workflow).toEqual([])
    // The request's own fields are not the editor's: they stay until the next save.
    expect(after.request.get("name")).toEqual(["name must not be empty"])
    expect(withoutFixed(issues, graph, removeEdges(graph, ["e1"])).edges.size).toBe(0)
  })

  it("a drag (positions only) changes nothing: the same object comes back", () => {
    const dragged = { ...graph, nodes: graph.nodes.map((n) => ({ ...n, position: { x: n.position.x + 5, y: n.position.y } })) }
    expect(withoutFixed(issues, graph, dragged)).toBe(issues)
    expect(withoutFixed(issues, graph, graph)).toBe(issues)
  })
})
