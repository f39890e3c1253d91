/** The briefing of a warm transfer (pure): the node's template rendered, or a summary of what the call gathered. */
import { describe, expect, it } from "@effect/vitest"
import type { TransferNode } from "../../src/graph/ConversationGraph.js"
import { briefingText, MAX_BRIEFING_CHARS, transferRequest } from "../../src/pipeline/Transfer.js"

const node = (data: Partial<TransferNode["data"]> = {}): TransferNode => ({
  id: "desk",
  type: "transfer",
  position: { x: 0, y: 0 },
  data: { name: "Billing desk", target: " +14155550111 ", ...data }
})

const call = { initialContext: { first_name: "Ann", plan: "gold" }, gatheredContext: { topic: "a refund", first_name: "Anne" } }

describe("warm transfer briefing", () => {
  it("renders the node's briefing with the call's variables, gathered values first", () => {
    expect(briefingText(node({ briefing: "{{first_name}} ({{plan}}) wants {{topic}}." }), call)).toBe("Anne (gold) wants a refund.")
  })

  it("without a briefing (or one that renders empty), sums up what the call gathered, its bookkeeping left out", () => {
    const gathered = { ...call.gatheredContext, call_disposition: "transferred", end_reason: "transfer_call", call_tags: ["x"], blank: " ", nested: { a: 1 }, vip: true, orders: 3 }
    const expected = "A caller is being transferred to you from Billing desk. topic: a refund. first name: Anne. vip: true. orders: 3."
    expect(briefingText(node(), { initialContext: {}, gatheredContext: gathered })).toBe(expected)
    expect(briefingText(node({ briefing: "  " }), { initialContext: {}, gatheredContext: gathered })).toBe(expected)
    expect(briefingText(node({ briefing: "{{missing}}" }), { initialContext: {}, gatheredContext: gathered })).toBe(expected)
    expect(briefingText(node(), { initialContext: {}, gatheredContext: {} })).toBe("A caller is being transferred to you from Billing desk.")
  })

  it("is cut at its longest", () => {
    const long = briefingText(node({ briefing: "word ".repeat(400) }), call)
    expect(long.length).toBeLessThanOrEqual(MAX_BRIEFING_CHARS)
    expect(long.endsWith("…")).toBe(true)
  })

  it("goes with a warm request only; a cold one has none", () => {
    expect(transferRequest(node({ mode: "warm", briefing: "Hi" }), call)).toEqual({ target: "+14155550111", mode: "warm", timeoutSeconds: 30, briefing: "Hi" })
    expect(transferRequest(node({ mode: "cold", briefing: "Hi", timeout: 12 }), call)).toEqual({ target: "+14155550111", mode: "cold", timeoutSeconds: 12 })
    expect(transferRequest(node(), call)).toEqual({ target: "+14155550111", mode: "cold", timeoutSeconds: 30 })
  })
})
