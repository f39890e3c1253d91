import { describe, expect, it } from "@effect/vitest"
import { applyToolCall, endConversation, startConversation, turn } from "../../src/graph/Conversation.js"
import { booking, graphOf } from "./fixtures.js"

const graph = graphOf(booking())
const call = (name: string, args: unknown = "{}", id = "call-1") => ({ id, name, arguments: args })

describe("startConversation", () => {
  it("starts at the start node with its greeting and logs the first node transition", () => {
    const started = startConversation(graph, { first_name: "Ann" })
    expect(started.state).toEqual({ node: graph.start, initialContext: { first_name: "Ann" }, gatheredContext: {}, ending: undefined })
    expect(started.opening.greeting).toEqual({ _tag: "Text", text: "Hello Ann!" })
    expect(started.events).toEqual([
      {
        type: "rtf-node-transition",
        payload: { node_id: "start", node_name: "Greeting", previous_node_id: null, previous_node_name: null, allow_interrupt: false }
      }
    ])
  })

  it("gives the LLM the node's prompt and tools", () => {
    const { state } = startConversation(graph, { first_name: "Ann" })
    const current = turn(graph, state)
    expect(current.systemPrompt).toBe("You are Ana from Acme.\n\nGreet Ann.")
    expect(current.tools.map((t) => t.name)).toEqual(["qualify", "end_call"])
    expect(current.allowInterrupt).toBe(false)
  })
})

describe("applyToolCall", () => {
  const started = startConversation(graph, { first_name: "Ann" }).state

  it("moves along an edge, says its transition speech and logs call start, transition, call end", () => {
    const step = applyToolCall(graph, started, call("qualify"))
    expect(step.state.node.id).toBe("qualify")
    expect(step.speech).toEqual({ _tag: "Text", text: "One moment, Ann." })
    expect(step.result).toBe("Moved to Qualify.")
    expect(step.events).toEqual([
      { type: "rtf-function-call-start", payload: { function_name: "qualify", tool_call_id: "call-1" } },
      {
        type: "rtf-node-transition",
        payload: { node_id: "qualify", node_name: "Qualify", previous_node_id: "start", previous_node_name: "Greeting", allow_interrupt: true }
      },
      { type: "rtf-function-call-end", payload: { function_name: "qualify", tool_call_id: "call-1", result: "Moved to Qualify." } }
    ])
    expect(turn(graph, step.state).allowInterrupt).toBe(true)
  })

  it("plays a transition recording and has no speech on edges without one", () => {
    const atQualify = applyToolCall(graph, started, call("qualify")).state
    expect(applyToolCall(graph, atQualify, call("not_interested")).speech).toEqual({ _tag: "Recording", recordingId: "rec-1" })
    expect(applyToolCall(graph, atQualify, call("book_it")).speech).toBeUndefined()
  })

  it("puts extracted values into gathered_context, which the next prompts see", () => {
    const atQualify = applyToolCall(graph, started, call("qualify")).state
    const step = applyToolCall(graph, atQualify, call("extract_variables", '{"city":"Rome","age":"41","interested":"yes"}'))
    expect(step.state.gatheredContext).toEqual({ city: "Rome", age: 41 })
    expect(step.result).toBe("Recorded city, age. Not recorded: interested (expected a boolean).")
    expect(step.state.node.id).toBe("qualify")
    expect(turn(graph, step.state).systemPrompt).toBe("You are Ana from Acme.\n\nAsk Ann about Rome.")
    expect(step.events.map((e) => e.type)).toEqual(["rtf-function-call-start", "rtf-function-call-end"])
  })

  it("refuses extraction arguments that are not a JSON object, changing nothing and logging an error", () => {
    const atQualify = applyToolCall(graph, started, call("qualify")).state
    const step = applyToolCall(graph, atQualify, call("extract_variables", "[1,2]"))
    expect(step.state).toBe(atQualify)
    expect(step.events.map((e) => e.type)).toEqual(["rtf-function-call-start", "rtf-function-call-end", "rtf-pipeline-error"])
  })

  it("ends politely with the disposition the LLM gave", () => {
    const step = applyToolCall(graph, started, call("end_call", { disposition: " not_interested " }))
    expect(step.state.ending).toBe("end_call_tool")
    expect(step.state.gatheredContext).toMatchObject({ call_disposition: "not_interested", mapped_call_disposition: "not_interested" })
    expect(step.result).toContain("goodbye")
    expect(step.state.node).toBe(started.node)
  })

  it("ends with end_call_tool as the disposition when the LLM gave none", () => {
    expect(applyToolCall(graph, started, call("end_call")).state.gatheredContext.call_disposition).toBe("end_call_tool")
    expect(applyToolCall(graph, started, call("end_call", '{"disposition":""}')).state.gatheredContext.call_disposition).toBe("end_call_tool")
  })

  it("refuses a tool the node does not offer, naming the ones it does", () => {
    const step = applyToolCall(graph, started, call("book_it"))
    expect(step.state).toBe(started)
    expect(step.result).toBe("There is no tool named book_it here; the tools are qualify, end_call.")
    expect(step.events[2]).toEqual({ type: "rtf-pipeline-error", payload: { error: step.result, fatal: false } })
  })

  it("runs nothing once the call is ending", () => {
    const ending = applyToolCall(graph, started, call("end_call")).state
    const step = applyToolCall(graph, ending, call("qualify"))
    expect(step.state).toBe(ending)
    expect(step.events.map((e) => e.type)).toContain("rtf-pipeline-error")
  })
})

describe("endConversation", () => {
  const state = startConversation(graph, {}).state
  it("uses the given disposition, else the gathered one, else the reason", () => {
    expect(endConversation(state, "user_hangup", "callback").gatheredContext.call_disposition).toBe("callback")
    const gathered = { ...state, gatheredContext: { call_disposition: "sale" } }
    expect(endConversation(gathered, "user_hangup").gatheredContext).toEqual({
      call_disposition: "sale",
      mapped_call_disposition: "sale",
      call_tags: ["sale"]
    })
    expect(endConversation(state, "user_idle_max_duration_exceeded").gatheredContext.call_disposition).toBe("user_idle_max_duration_exceeded")
  })
  it("adds the disposition to call_tags once, keeping the tags already there", () => {
    const tagged = { ...state, gatheredContext: { call_tags: ["user_speech", "sale"] } }
    expect(endConversation(tagged, "end_call_tool", "sale").gatheredContext.call_tags).toEqual(["user_speech", "sale"])
    expect(endConversation(tagged, "user_hangup").gatheredContext.call_tags).toEqual(["user_speech", "sale", "user_hangup"])
  })
  it("keeps the first ending: a hangup after end_call does not overwrite its reason or disposition", () => {
    const ended = endConversation(state, "end_call_tool", "sale")
    expect(endConversation(ended, "user_hangup")).toBe(ended)
  })
})
