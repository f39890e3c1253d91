import { validateDefinition } from "@agentline/core/workflows/DefinitionValidation"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { conversationGraph, UnrunnableDefinition } from "../../src/graph/ConversationGraph.js"
import { booking, graphOf, node } from "./fixtures.js"

/** A definition as decoded, whatever the validation says of it (stored JSON need not pass today's checks). */
const decoded = (definition: unknown) => validateDefinition(definition).definition

describe("conversationGraph", () => {
  it("indexes the conversation nodes, outgoing edges in definition order, the start and the global node", () => {
    const graph = graphOf(booking())
    expect(graph.start.id).toBe("start")
    expect(graph.global?.id).toBe("global")
    expect([...graph.nodes.keys()]).toEqual(["start", "qualify", "book", "bye"])
    expect(graph.outgoing.get("qualify")!.map((e) => e.id)).toEqual(["e2", "e3"])
    expect(graph.outgoing.get("bye")).toBeUndefined()
  })

  it("has no global node when the definition has none", () => {
    expect(graphOf(booking({ global: false })).global).toBeUndefined()
  })

  // Saved definitions always have one start node; stored JSON from elsewhere (or a hand-built value) may not.
  it("refuses a definition without exactly one start node", () => {
    const none = { nodes: [node("a", "agentNode", { prompt: "p" })], edges: [] }
    expect(conversationGraph(decoded(none))).toEqual(Either.left(new UnrunnableDefinition({ message: "the definition needs exactly one startCall node, it has 0" })))
    const two = {
      nodes: [node("a", "startCall", { prompt: "p" }), node("b", "startCall", { prompt: "p" })],
      edges: []
    }
    expect(Either.isLeft(conversationGraph(decoded(two)))).toBe(true)
  })

  it("ignores edges touching nodes a conversation cannot be at", () => {
    const def = {
      nodes: [node("s", "startCall", { prompt: "p" }), node("w", "webhook", {})],
      edges: [{ id: "x", source: "s", target: "w", data: { label: "l", condition: "c" } }]
    }
    expect(Either.getOrThrow(conversationGraph(decoded(def))).outgoing.size).toBe(0)
  })
})
