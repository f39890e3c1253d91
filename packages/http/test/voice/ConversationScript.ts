/**
 * The agent and the fake LLM's side of the test conversations: the demo's two-node agent (qualify,
 * then ask the city and extract it, `DemoConversations.ts`) and a barge-in agent that talks at length.
 * `respond` answers each request of the fake OpenAI-compatible server by the node it comes from (its
 * tools) and what came last.
 */
import { reply, type Received } from "@agentline/voice-openai/testing/FakeOpenAi"
import { agentDefinition, scriptedReplies } from "../../src/DemoConversations.js"

export const toolNames = (request: Received): ReadonlyArray<string> => (request.body.tools ?? []).map((t: { readonly function: { readonly name: string } }) => t.function.name)
export const lastRole = (request: Received): string => request.body.messages.at(-1)?.role

/** The LLM's side of the conversations below, decided by the node (its tools) and what came last. */
export const respond = (request: Received) => {
  const tools = toolNames(request)
  const system: string = request.body.messages[0]?.content ?? ""
  if (system.includes("Barge-in agent")) {
    if (tools.length === 0) return reply("Bye now.")
    return lastRole(request) === "user"
      ? reply("Sorry, go ahead.", [{ name: "end_call", arguments: {} }])
      : reply("Let me tell you about our plans. The first plan costs ten dollars. The second plan costs twenty dollars. The third plan costs thirty dollars and includes everything we offer today.")
  }
  if (system.includes("Transfer agent")) {
    // The caller asks for a person: the model takes the edge into the transfer node, and says nothing itself.
    return lastRole(request) === "user" ? reply("", [{ name: "to_sales", arguments: {} }]) : reply("Anything else?")
  }
  if (system.includes("Tool agent")) return toolAgent(request, tools)
  return scriptedReplies(request)
}

/** An agent that greets, then hands the caller to `target` when asked (`respond` plays its model). */
export const transferDefinition = (target: string) => ({
  nodes: [
    { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Transfer agent: help the caller.", greeting: "Hello, how can I help?" } },
    {
      id: "sales",
      type: "transfer",
      position: { x: 0, y: 100 },
      data: { name: "Sales desk", target, message: "Let me put you through to sales.", mode: "warm", briefing: "A caller for sales: {{customer}}.", timeout: 5 }
    }
  ],
  edges: [{ id: "e1", source: "start", target: "sales", data: { label: "to sales", condition: "The caller wants a person" } }]
})

/** What the runtime sends back for a tool call: its data (text or an order), or a failure. */
interface ToolResult {
  readonly data?: string | { readonly id?: string; readonly status?: string }
}

/**
 * The tool agent's model: asked about an order, it calls the HTTP tool and the MCP tool; asked to book,
 * the failing and the slow tool; given results, it says what they returned, then ends the call.
 */
const toolAgent = (request: Received, tools: ReadonlyArray<string>) => {
  if (tools.length === 0) return reply("Goodbye.")
  const messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }> = request.body.messages
  const last = messages.at(-1)!
  if (last.role === "user") {
    return String(last.content).includes("order")
      ? reply("", [{ name: "order_status", arguments: { order_id: "A17" } }, { name: "lookup_order", arguments: { order_id: "Z9" } }])
      : reply("", [{ name: "reserve", arguments: {} }, { name: "check_stock", arguments: {} }])
  }
  const lastAssistant = messages.map((m) => m.role).lastIndexOf("assistant")
  // A result is JSON text, sent as a JSON string.
  const decode = (content: unknown): ToolResult => {
    const value = JSON.parse(String(content))
    return typeof value === "string" ? decode(value) : value
  }
  const results = messages.slice(lastAssistant + 1).filter((m) => m.role === "tool").map((m) => decode(m.content))
  const said = results.map((r) =>
    typeof r.data === "string" ? `${r.data}.` : r.data?.id !== undefined ? `Order ${r.data.id} is ${r.data.status ?? "unknown"}.` : `That did not work.`
  )
  return String([...messages].reverse().find((m) => m.role === "user")?.content).includes("order")
    ? reply(said.join(" "))
    : reply(said.join(" "), [{ name: "end_call", arguments: {} }])
}

export { agentDefinition as definition }

/** An agent that opens with a long reply on a node the caller may interrupt (`respond` plays its model). */
export const bargeInDefinition = {
  nodes: [
    { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Barge-in agent: present the plans.", allow_interrupt: true } },
    { id: "bye", type: "endCall", position: { x: 0, y: 100 }, data: { name: "Bye", prompt: "Say goodbye." } }
  ],
  edges: [{ id: "e1", source: "start", target: "bye", data: { label: "done", condition: "Done" } }]
}
