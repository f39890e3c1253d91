/**
 * The agent's side of a text chat turn: the same graph executor as a call (`graph/Conversation.ts`:
 * node prompts, transitions, extraction, end call) driven by the language model's tool calls, with
 * text in and text out. Greetings and transition speech are written instead of spoken (a recording's
 * text stands in for its audio).
 */
import type { ChatMessage } from "@agentline/core/text-chat/TextChatSession"
import type { LanguageModel, Prompt } from "@effect/ai"
import { Effect } from "effect"
import { applyToolCall, type ConversationState, startConversation, turn } from "../graph/Conversation.js"
import type { ConversationGraph } from "../graph/ConversationGraph.js"
import type { FeedbackEvent } from "../graph/FeedbackEvents.js"
import type { Utterance } from "../graph/Prompt.js"
import { offeredToolkit } from "../pipeline/ModelReply.js"
// Tool-call rounds one turn may take: the same bound as on a call.
import { MAX_HOPS } from "../pipeline/Responder.js"
import { graphTools } from "../session/LanguageModelTools.js"
import { promptMessage } from "./ChatTurns.js"


export interface AgentTurn {
  readonly state: ConversationState
  /** What the agent wrote, in order (replies, transition speech, the goodbye). */
  readonly said: ReadonlyArray<string>
  /** The model messages this turn added. */
  readonly messages: ReadonlyArray<ChatMessage>
  readonly usage: { readonly input_tokens: number; readonly output_tokens: number }
  readonly events: ReadonlyArray<FeedbackEvent>
}

/** An utterance as text: its words, or a recording's text (nothing when the recording has none). */
export const written = (utterance: Utterance | undefined): string | undefined =>
  utterance === undefined ? undefined : utterance._tag === "Text" ? utterance.text : utterance.fallbackText

const nonEmpty = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

/**
 * The agent answers at the conversation's node: replies and tool calls until it has said what it has
 * to say; with `ending` set by the end-call tool, one more reply without tools (the goodbye).
 */
export const agentTurn = (
  model: LanguageModel.Service,
  graph: ConversationGraph,
  start: ConversationState,
  past: ReadonlyArray<Prompt.MessageEncoded>,
  userText: string | undefined
) =>
  Effect.gen(function*() {
    let state = start
    const said: Array<string> = []
    const messages: Array<ChatMessage> = userText === undefined ? [] : [{ _tag: "user", text: userText }]
    const events: Array<FeedbackEvent> = []
    const usage = { input_tokens: 0, output_tokens: 0 }
    const ask = (allowTools: boolean) =>
      Effect.gen(function*() {
        const current = turn(graph, state)
        const tools = graphTools(allowTools ? current.tools : [])
        const prompt: ReadonlyArray<Prompt.MessageEncoded> = [{ role: "system", content: current.systemPrompt }, ...past, ...messages.map(promptMessage)]
        // Tool calls are returned, never run by @effect/ai: the graph executor applies them below.
        const generated = Object.keys(tools).length === 0
          ? model.generateText({ prompt })
          : model.generateText({ prompt, toolkit: offeredToolkit(tools), disableToolCallResolution: true })
        const response = yield* generated
        usage.input_tokens += response.usage.inputTokens ?? 0
        usage.output_tokens += response.usage.outputTokens ?? 0
        const text = response.text.trim()
        if (text !== "") said.push(text)
        const calls = response.toolCalls.map((call) => ({ id: call.id, name: call.name, params: call.params }))
        messages.push({ _tag: "assistant", text, tool_calls: calls })
        return calls
      })
    for (let hop = 0; hop < MAX_HOPS && state.ending === undefined; hop++) {
      const calls = yield* ask(true)
      if (calls.length === 0) break
      for (const call of calls) {
        const step = applyToolCall(graph, state, { id: call.id, name: call.name, arguments: call.params })
        state = step.state
        events.push(...step.events)
        messages.push({ _tag: "tool", id: call.id, name: call.name, result: step.result })
        const speech = written(step.speech)
        if (nonEmpty(speech)) said.push(speech)
      }
    }
    // After the end-call tool, a goodbye; a transfer node's message was the last word (as on a call).
    if (state.ending !== undefined && state.transfer === undefined) yield* ask(false)
    return { state, said, messages, usage, events } satisfies AgentTurn
  })

/**
 * The conversation's opening: the start node's greeting when it has one (no model asked), else the
 * agent's first reply.
 */
export const openingTurn = (
  model: LanguageModel.Service | undefined,
  graph: ConversationGraph,
  initialContext: Readonly<Record<string, unknown>>
) =>
  Effect.gen(function*() {
    const started = startConversation(graph, initialContext)
    const greeting = written(started.opening.greeting)
    if (nonEmpty(greeting) || model === undefined) {
      const said = nonEmpty(greeting) ? [greeting] : []
      return {
        state: started.state,
        said,
        messages: said.map((text): ChatMessage => ({ _tag: "assistant", text, tool_calls: [] })),
        usage: { input_tokens: 0, output_tokens: 0 },
        events: started.events
      } satisfies AgentTurn
    }
    const answered = yield* agentTurn(model, graph, started.state, [], undefined)
    return { ...answered, events: [...started.events, ...answered.events] } satisfies AgentTurn
  })
