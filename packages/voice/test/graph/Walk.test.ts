/**
 * Properties over random definitions and random conversations: whatever the graph and whatever the LLM
 * calls, the executor stays on the graph, logs every call as a start/end pair, and stops once ending.
 */
import { transitionToolName } from "@agentline/core/workflows/WorkflowDefinition"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import type { ConversationState } from "../../src/graph/Conversation.js"
import { applyToolCall, startConversation, turn } from "../../src/graph/Conversation.js"
import { edge, graphOf, node } from "./fixtures.js"

const LABELS = ["yes", "No", "next", "Book it", "book-it", "End call", "extract variables", "end_call_"]

const definition = FastCheck.record({
  agents: FastCheck.integer({ min: 0, max: 5 }),
  withEnd: FastCheck.boolean(),
  withGlobal: FastCheck.boolean(),
  extract: FastCheck.boolean(),
  edges: FastCheck.array(FastCheck.tuple(FastCheck.nat(), FastCheck.nat(), FastCheck.constantFrom(...LABELS)), { maxLength: 20 })
}).map(({ agents, edges, extract, withEnd, withGlobal }) => {
  const extraction = extract ? { extraction_enabled: true, extraction_variables: [{ name: "n", type: "number" }] } : {}
  const ids = ["s", ...Array.from({ length: agents }, (_, i) => `a${i}`), ...(withEnd ? ["e"] : [])]
  const nodes = ids.map((id) =>
    node(id, id === "s" ? "startCall" : id === "e" ? "endCall" : "agentNode", { prompt: `at ${id}`, ...extraction })
  )
  const seen = new Set<string>()
  const kept = edges.flatMap(([from, to, label], i) => {
    const source = ids[from % ids.length]!
    const target = ids[to % ids.length]!
    const key = `${source} ${transitionToolName(label)}`
    if (source === "e" || target === "s" || seen.has(key)) return []
    seen.add(key)
    return [edge(`x${i}`, source, target, label)]
  })
  return { nodes: [...nodes, ...(withGlobal ? [node("g", "globalNode", { prompt: "global" })] : [])], edges: kept }
})

/** What the LLM does each turn: pick one of the offered tools (by index), or call one that does not exist. */
const moves = FastCheck.array(
  FastCheck.oneof(FastCheck.nat().map((i) => ({ pick: i })), FastCheck.constant({ pick: "bogus" as const })),
  { maxLength: 30 }
)

describe("random conversations", () => {
  it.prop("tool names at every node are unique", [definition], ([def]) => {
    const graph = graphOf(def)
    for (const n of graph.nodes.values()) {
      const names = turn(graph, { node: n, initialContext: {}, gatheredContext: {}, ending: undefined }).tools.map((t) => t.name)
      expect(new Set(names).size).toBe(names.length)
    }
  })

  it.prop("every step stays on the graph, logs the call as a start/end pair, and nothing runs once ending", [definition, moves], ([def, plan]) => {
    const graph = graphOf(def)
    let state: ConversationState = startConversation(graph, {}).state
    plan.forEach((move, i) => {
      const tools = turn(graph, state).tools
      const tool = move.pick === "bogus" ? undefined : tools[move.pick % tools.length]!
      const name = tool?.name ?? "no_such_tool"
      const args = tool?.kind._tag === "Extraction" ? { n: i } : {}
      const step = applyToolCall(graph, state, { id: `c${i}`, name, arguments: args })

      expect(graph.nodes.get(step.state.node.id)).toBe(step.state.node)
      expect(step.events[0]).toEqual({ type: "rtf-function-call-start", payload: { function_name: name, tool_call_id: `c${i}` } })
      const end = step.events.find((e) => e.type === "rtf-function-call-end")
      expect(end?.payload).toEqual({ function_name: name, tool_call_id: `c${i}`, result: step.result })

      const transitions = step.events.filter((e) => e.type === "rtf-node-transition")
      const errors = step.events.filter((e) => e.type === "rtf-pipeline-error")
      if (state.ending !== undefined || tool === undefined) {
        expect(step.state).toBe(state)
        expect(errors).toHaveLength(1)
        expect(transitions).toHaveLength(0)
      } else {
        expect(errors).toHaveLength(0)
        if (tool.kind._tag === "Transition") {
          expect(step.state.node.id).toBe(tool.kind.edge.target)
          expect(transitions).toEqual([
            expect.objectContaining({ payload: expect.objectContaining({ node_id: tool.kind.edge.target, previous_node_id: state.node.id }) })
          ])
        } else {
          expect(step.state.node).toBe(state.node)
          expect(transitions).toHaveLength(0)
        }
        if (tool.kind._tag === "EndCall") expect(step.state.ending).toBe("end_call_tool")
        if (tool.kind._tag === "Extraction") expect(step.state.gatheredContext.n).toBe(i)
      }
      state = step.state
    })
  })
})
