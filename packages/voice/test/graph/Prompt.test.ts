import { describe, expect, it } from "@effect/vitest"
import { opening, systemPrompt, templateContext, utterance } from "../../src/graph/Prompt.js"
import { booking, graphOf } from "./fixtures.js"

const at = (graph: ReturnType<typeof graphOf>, id: string) => graph.nodes.get(id)!

describe("templateContext", () => {
  it("exposes both contexts flat and nested; gathered values win over initial ones", () => {
    const context = templateContext({ first_name: "Ann", city: "Oslo" }, { city: "Rome" })
    expect(context).toEqual({
      first_name: "Ann",
      city: "Rome",
      initial_context: { first_name: "Ann", city: "Oslo" },
      gathered_context: { city: "Rome" }
    })
  })
})

describe("systemPrompt", () => {
  const graph = graphOf(booking())
  it("renders the node's prompt after the global prompt when add_global_prompt is unset (default true)", () => {
    expect(systemPrompt(graph, at(graph, "start"), templateContext({ first_name: "Ann" }, {}))).toBe(
      "You are Ana from Acme.\n\nGreet Ann."
    )
  })
  it("leaves the global prompt out where add_global_prompt is false", () => {
    expect(systemPrompt(graph, at(graph, "book"), templateContext({ company: "Zed" }, {}))).toBe("Book a slot.")
  })
  it("renders gathered_context paths and their defaults", () => {
    const node = at(graph, "qualify")
    expect(systemPrompt(graph, node, templateContext({ first_name: "Ann" }, {}))).toBe(
      "You are Ana from Acme.\n\nAsk Ann about their city."
    )
    expect(systemPrompt(graph, node, templateContext({ first_name: "Ann", company: "Zed" }, { city: "Rome" }))).toBe(
      "You are Ana from Zed.\n\nAsk Ann about Rome."
    )
  })
  it("is the node's prompt alone when there is no global node", () => {
    const plain = graphOf(booking({ global: false }))
    expect(systemPrompt(plain, at(plain, "start"), templateContext({ first_name: "Bo" }, {}))).toBe("Greet Bo.")
  })
})

describe("opening", () => {
  const context = templateContext({ first_name: "Ann" }, {})
  it("greets with the rendered text and no delay by default", () => {
    expect(opening(graphOf(booking()), context)).toEqual({ delaySeconds: 0, greeting: { _tag: "Text", text: "Hello Ann!" } })
  })
  it("plays the recording when greeting_type is audio", () => {
    const graph = graphOf(booking({ start: { greeting_type: "audio", greeting_recording_id: "rec-9" } }))
    // The text greeting stands in if the recording cannot be played at call time.
    expect(opening(graph, context).greeting).toEqual({ _tag: "Recording", recordingId: "rec-9", fallbackText: "Hello Ann!" })
  })
  it("a contact's greeting_override replaces the agent's greeting: text (rendered) or a recording falling back to the agent's text", () => {
    const graph = graphOf(booking({ start: { greeting_type: "audio", greeting_recording_id: "rec-9" } }))
    const withOverride = (override: unknown) => templateContext({ first_name: "Ann", greeting_override: override }, {})
    expect(opening(graph, withOverride({ type: "text", text: "Hi {{first_name}}, it's us again." })).greeting)
      .toEqual({ _tag: "Text", text: "Hi Ann, it's us again." })
    expect(opening(graphOf(booking()), withOverride({ type: "audio", recording_id: "rec-ann" })).greeting)
      .toEqual({ _tag: "Recording", recordingId: "rec-ann", fallbackText: "Hello Ann!" })
    expect(opening(graph, withOverride({ type: "audio", recording_id: "rec-ann" })).greeting)
      .toEqual({ _tag: "Recording", recordingId: "rec-ann", fallbackText: "Hello Ann!" })
    // Malformed overrides are ignored: the agent's own greeting plays.
    for (const bad of [null, "text", { type: "audio" }, { type: "text", text: "   " }, { type: "video", text: "x" }]) {
      expect(opening(graph, withOverride(bad)).greeting, JSON.stringify(bad))
        .toEqual({ _tag: "Recording", recordingId: "rec-9", fallbackText: "Hello Ann!" })
    }
  })
  it("falls back to the text when audio is chosen without a recording", () => {
    const graph = graphOf(booking({ start: { greeting_type: "audio", greeting_recording_id: null } }))
    expect(opening(graph, context).greeting).toEqual({ _tag: "Text", text: "Hello Ann!" })
  })
  it("has no greeting when there is none, or it renders blank (the LLM speaks first)", () => {
    expect(opening(graphOf(booking({ start: { greeting: null } })), context).greeting).toBeUndefined()
    expect(opening(graphOf(booking({ start: { greeting: "{{nobody}}" } })), context).greeting).toBeUndefined()
  })
  it("waits delayed_start_duration seconds, 2 when unset, only when delayed_start is on", () => {
    expect(opening(graphOf(booking({ start: { delayed_start: true } })), context).delaySeconds).toBe(2)
    expect(opening(graphOf(booking({ start: { delayed_start: true, delayed_start_duration: 0.5 } })), context).delaySeconds).toBe(0.5)
    expect(opening(graphOf(booking({ start: { delayed_start: false, delayed_start_duration: 5 } })), context).delaySeconds).toBe(0)
  })
})

describe("utterance", () => {
  it("covers every type/text/recording combination", () => {
    const ctx = { x: "X" }
    expect(utterance("text", "hi {{x}}", "rec", ctx)).toEqual({ _tag: "Text", text: "hi X" })
    expect(utterance(undefined, "hi", null, ctx)).toEqual({ _tag: "Text", text: "hi" })
    expect(utterance("audio", "hi", "rec", ctx)).toEqual({ _tag: "Recording", recordingId: "rec", fallbackText: "hi" })
    expect(utterance("audio", null, "rec", ctx)).toStrictEqual({ _tag: "Recording", recordingId: "rec", fallbackText: undefined })
    expect(utterance("audio", "hi", "  ", ctx)).toEqual({ _tag: "Text", text: "hi" })
    expect(utterance("audio", null, null, ctx)).toBeUndefined()
    expect(utterance(null, "   ", null, ctx)).toBeUndefined()
  })
})
