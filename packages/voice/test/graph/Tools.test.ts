import { describe, expect, it } from "@effect/vitest"
import { nodeTools } from "../../src/graph/Tools.js"
import { booking, edge, graphOf, node } from "./fixtures.js"

describe("nodeTools", () => {
  const graph = graphOf(booking())
  const tools = (id: string) => nodeTools(graph, graph.nodes.get(id)!)

  it("offers one transition per outgoing edge, named by transitionToolName(label), described by the condition, then end_call", () => {
    expect(tools("start").map((t) => [t.name, t.description, t.kind._tag])).toEqual([
      ["qualify", "when Qualify", "Transition"],
      ["end_call", expect.stringContaining("End the call politely"), "EndCall"]
    ])
    expect(tools("start")[0]!.parameters).toEqual({ type: "object", properties: {}, required: [], additionalProperties: false })
  })

  it("adds the extraction tool with the variables' types as a JSON schema where extraction is enabled", () => {
    const list = tools("qualify")
    expect(list.map((t) => t.name)).toEqual(["book_it", "not_interested", "end_call", "extract_variables"])
    expect(list[3]).toMatchObject({
      description: "Note the caller's details.",
      kind: { _tag: "Extraction" },
      parameters: {
        type: "object",
        properties: {
          city: { type: "string", description: "The caller's city" },
          age: { type: "number" },
          interested: { type: "boolean" }
        },
        required: [],
        additionalProperties: false
      }
    })
  })

  it("offers no extraction tool when extraction is off or declares no variables", () => {
    const off = graphOf(booking({ qualify: { extraction_enabled: false } }))
    expect(nodeTools(off, off.nodes.get("qualify")!).map((t) => t.name)).not.toContain("extract_variables")
    const empty = graphOf(booking({ qualify: { extraction_variables: [] } }))
    expect(nodeTools(empty, empty.nodes.get("qualify")!).map((t) => t.name)).not.toContain("extract_variables")
  })

  it("gives an endCall node only the end-call tool", () => {
    expect(tools("bye").map((t) => t.name)).toEqual(["end_call"])
  })

  it("renames a built-in tool whose name an edge label takes, keeping the edge's name", () => {
    const clash = graphOf({
      nodes: [
        node("s", "startCall", { prompt: "p", extraction_enabled: true, extraction_variables: [{ name: "a", type: "string" }] }),
        node("a", "agentNode", { prompt: "p" }),
        node("b", "agentNode", { prompt: "p" }),
        node("c", "agentNode", { prompt: "p" })
      ],
      edges: [edge("1", "s", "a", "End call"), edge("2", "s", "b", "end_call_"), edge("3", "s", "c", "Extract variables")]
    })
    const list = nodeTools(clash, clash.start)
    expect(list.map((t) => [t.name, t.kind._tag])).toEqual([
      ["end_call", "Transition"],
      ["end_call_", "Transition"],
      ["extract_variables", "Transition"],
      ["end_call__", "EndCall"],
      ["extract_variables_", "Extraction"]
    ])
  })
})
