import { validateDefinition } from "@agentline/core/workflows/DefinitionValidation"
import { Either } from "effect"
import type { ConversationGraph } from "../../src/graph/ConversationGraph.js"
import { conversationGraph } from "../../src/graph/ConversationGraph.js"

/** Decodes through the same validation a save goes through, so fixtures are definitions a call can get. */
export const graphOf = (definition: unknown): ConversationGraph => {
  const { definition: decoded, errors } = validateDefinition(definition)
  if (errors.length > 0) throw new Error(`fixture is not a valid definition: ${JSON.stringify(errors)}`)
  return Either.getOrThrow(conversationGraph(decoded))
}

export const node = (id: string, type: string, data: Record<string, unknown>) => ({ id, type, data: { name: id, ...data } })
export const edge = (id: string, source: string, target: string, label: string, data: Record<string, unknown> = {}) => ({
  id,
  source,
  target,
  data: { label, condition: `when ${label}`, ...data }
})

/** A small booking agent: greet, qualify (with extraction), book or end. */
export const booking = (overrides: { start?: Record<string, unknown>; qualify?: Record<string, unknown>; global?: boolean } = {}) => ({
  nodes: [
    node("start", "startCall", { name: "Greeting", prompt: "Greet {{first_name}}.", greeting: "Hello {{first_name}}!", ...overrides.start }),
    node("qualify", "agentNode", {
      name: "Qualify",
      prompt: "Ask {{first_name}} about {{gathered_context.city | their city}}.",
      allow_interrupt: true,
      extraction_enabled: true,
      extraction_prompt: "Note the caller's details.",
      extraction_variables: [
        { name: "city", type: "string", prompt: "The caller's city" },
        { name: "age", type: "number" },
        { name: "interested", type: "boolean" }
      ],
      ...overrides.qualify
    }),
    node("book", "agentNode", { name: "Book", prompt: "Book a slot.", add_global_prompt: false }),
    node("bye", "endCall", { name: "Goodbye", prompt: "Say goodbye." }),
    ...(overrides.global === false ? [] : [node("global", "globalNode", { name: "Global", prompt: "You are Ana from {{company | Acme}}." })])
  ],
  edges: [
    edge("e1", "start", "qualify", "Qualify", { transition_speech: "One moment, {{first_name}}." }),
    edge("e2", "qualify", "book", "Book it"),
    edge("e3", "qualify", "bye", "Not interested", { transition_speech_type: "audio", transition_speech_recording_id: "rec-1" }),
    edge("e4", "book", "bye", "Done")
  ]
})
