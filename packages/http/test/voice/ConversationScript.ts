/**
 * The agent and the fake LLM's side of the test conversations: a two-node agent (qualify, then ask
 * the city and extract it) and a barge-in agent that talks at length. `respond` answers each request
 * of the fake OpenAI-compatible server by the node it comes from (its tools) and what came last.
 */
import { reply, type Received } from "@agentline/voice-openai/testing/FakeOpenAi"

export const toolNames = (request: Received): ReadonlyArray<string> => (request.body.tools ?? []).map((t: any) => t.function.name)
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
  if (tools.includes("qualify")) return reply("", [{ name: "qualify", arguments: {} }])
  if (tools.includes("extract_variables")) {
    return lastRole(request) === "user"
      ? reply("", [{ name: "extract_variables", arguments: { city: "Paris" } }, { name: "end_call", arguments: { disposition: "interested" } }])
      : reply("Which city do you live in?")
  }
  return reply(system.includes("Barge-in agent") ? "Bye now." : "Thank you, goodbye.")
}


export const definition = {
  nodes: [
    {
      id: "start",
      type: "startCall",
      position: { x: 0, y: 0 },
      data: {
        name: "Start",
        greeting: "Hello {{first_name}}, this is Acme.",
        prompt: "You are calling {{first_name}} about the {{product}}. If they are interested, qualify them."
      }
    },
    {
      id: "ask",
      type: "agentNode",
      position: { x: 0, y: 100 },
      data: {
        name: "Ask city",
        prompt: "Ask {{first_name}} which city they live in.",
        extraction_enabled: true,
        extraction_variables: [{ name: "city", type: "string", prompt: "The caller's city" }]
      }
    },
    { id: "bye", type: "endCall", position: { x: 0, y: 200 }, data: { name: "Bye", prompt: "Say goodbye." } }
  ],
  edges: [
    { id: "e1", source: "start", target: "ask", data: { label: "qualify", condition: "The caller is interested" } },
    { id: "e2", source: "ask", target: "bye", data: { label: "done", condition: "The city is known" } }
  ]
}

