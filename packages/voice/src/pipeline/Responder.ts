/**
 * The responder: the agent's mind, free of telephony. Text in (what the caller said), text out (what
 * the agent says, sentence by sentence, as the language model streams it), through a `ReplySink` that
 * a phone call speaks, a chat would print. It holds the conversation (graph executor state, the model's
 * history), asks the model at the current node with the node's tools (its own: transitions, end call,
 * extraction; and the organization's HTTP and MCP tools the node lists), runs the calls the model
 * makes, feeds the results back, and goes on until the model has said what it has to say.
 */
import type { NodeTools, ToolWaitingMessage } from "@agentline/core/tools/ToolCalls"
import type { AiError, Prompt } from "@effect/ai"
import { Effect, Fiber, Option, Schema } from "effect"
import { applyToolCall, type ConversationState, endConversation, startConversation, turn } from "../graph/Conversation.js"
import type { ConversationGraph, ConversationNode } from "../graph/ConversationGraph.js"
import type { Utterance } from "../graph/Prompt.js"
import { graphTools } from "../session/LanguageModelTools.js"
import { organizationToolkit } from "../tools/OrganizationTools.js"
import { SpanNames, ToolCallAttributes } from "../TurnTelemetry.js"
import { type ModelToolCall, type NamedModel, streamReply, type Tokens } from "./ModelReply.js"
import type { RunEvent } from "./RunEvents.js"

/** Tool-call rounds one caller turn may take (a model that keeps transitioning is stopped here). */
export const MAX_HOPS = 4

/** Where a reply goes: sentences of the model's text, and utterances said outside the model. */
export interface ReplySink<E> {
  readonly text: (sentence: string) => Effect.Effect<void, E>
  /** A greeting, a transition's speech, a tool's waiting message: text or a recording. */
  readonly say: (utterance: Utterance) => Effect.Effect<void, E>
  /** Runs once, at the model's first token of the turn. */
  readonly firstToken: Effect.Effect<void>
}

export interface ResponderOptions {
  readonly graph: ConversationGraph
  readonly initialContext: Readonly<Record<string, unknown>>
  /** None when no language model is configured: the responder cannot answer. */
  readonly model: Option.Option<NamedModel>
  /** The organization's tools a node lists (`ToolCalls.forNode`); none where tools are not available. */
  readonly nodeTools?: (node: ConversationNode) => Effect.Effect<NodeTools>
  readonly note: (events: ReadonlyArray<RunEvent>) => Effect.Effect<void>
}

const strings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []

/** The organization tools a node lists (`tool_uuids`) and, per MCP tool, which of its server's tools (`mcp_tool_filters`). */
export const listedTools = (node: ConversationNode) => {
  const filters: unknown = node.data.mcp_tool_filters
  return {
    uuids: strings(node.data.tool_uuids),
    mcpFilters: typeof filters === "object" && filters !== null
      ? Object.fromEntries(Object.entries(filters).map(([uuid, names]) => [uuid, strings(names)]))
      : {}
  }
}

const waitingUtterance = (message: ToolWaitingMessage): Utterance => message

export const makeResponder = (options: ResponderOptions) => {
  const { graph, model, note } = options
  const started = startConversation(graph, options.initialContext)
  let state: ConversationState = started.state
  const history: Array<Prompt.MessageEncoded> = []
  const tokens: Tokens = { inputTokens: 0, outputTokens: 0 }
  const toolCalls: Array<{ readonly name: string; readonly status: "success" | "error"; readonly latencyMs: number }> = []

  const context = () => ({ initial_context: state.initialContext, gathered_context: state.gatheredContext })

  /** The node's organization tools, offered beside its own (which keep their names). */
  const organizationTools = (node: ConversationNode, taken: ReadonlySet<string>) =>
    Effect.gen(function*() {
      if (options.nodeTools === undefined || listedTools(node).uuids.length === 0) return organizationToolkit({ tools: [], skipped: [] })
      const listed = yield* options.nodeTools(node)
      if (listed.skipped.length > 0) {
        yield* Effect.logWarning(`Voice runtime: tools not offered at ${node.id}: ${listed.skipped.map((s) => `${s.tool_uuid} (${s.reason})`).join(", ")}`)
      }
      return organizationToolkit(listed, taken)
    })

  /** Runs one organization tool call; its waiting message is said while it runs. */
  const callOrganizationTool = <E>(
    call: ModelToolCall,
    tool: NonNullable<ReturnType<ReturnType<typeof organizationToolkit>["find"]>>,
    out: ReplySink<E>
  ) =>
    Effect.gen(function*() {
      const running = yield* Effect.fork(tool.call(call.params, context()))
      if (tool.waiting !== undefined) yield* out.say(waitingUtterance(tool.waiting))
      const outcome = yield* Fiber.join(running)
      yield* Effect.annotateCurrentSpan({ [ToolCallAttributes.outcome]: outcome.record.status })
      toolCalls.push({ name: call.name, status: outcome.record.status, latencyMs: outcome.record.latency_ms })
      yield* note([{ type: "rtf-tool-call", payload: { ...outcome.record, tool_call_id: call.id } }])
      return outcome.result
    }).pipe(Effect.withSpan(SpanNames.toolCall, { attributes: { [ToolCallAttributes.name]: call.name } }))

  /** One model reply at the current node; its tool calls run and their results go to the history. */
  const hop = <E>(current: NamedModel, out: ReplySink<E>, allowTools: boolean) =>
    Effect.gen(function*() {
      const node = turn(graph, state)
      const own = graphTools(allowTools ? node.tools : [])
      const kit = allowTools ? yield* organizationTools(state.node, new Set(Object.keys(own))) : organizationToolkit({ tools: [], skipped: [] })
      const said: Array<string> = []
      const calls = yield* streamReply({
        model: current,
        prompt: [{ role: "system", content: node.systemPrompt }, ...history],
        tools: { ...own, ...kit.tools },
        tokens,
        firstToken: out.firstToken,
        sentence: (text) => Effect.zipRight(Effect.sync(() => said.push(text)), out.text(text))
      })
      const text = said.join(" ")
      history.push({
        role: "assistant",
        content: [
          ...(text !== "" ? [{ type: "text" as const, text }] : []),
          ...calls.map((c) => ({ type: "tool-call" as const, id: c.id, name: c.name, params: c.params, providerExecuted: false }))
        ]
      })
      for (const c of calls) {
        const tool = kit.find(c.name)
        if (tool !== undefined) {
          const result = yield* callOrganizationTool(c, tool, out)
          history.push({ role: "tool", content: [{ type: "tool-result", id: c.id, name: c.name, result, isFailure: false, providerExecuted: false }] })
          continue
        }
        const step = applyToolCall(graph, state, { id: c.id, name: c.name, arguments: c.params })
        state = step.state
        yield* note(step.events)
        history.push({ role: "tool", content: [{ type: "tool-result", id: c.id, name: c.name, result: step.result, isFailure: false, providerExecuted: false }] })
        if (step.speech !== undefined) yield* out.say(step.speech)
      }
      return calls.length
    })

  /**
   * The agent's answer to `userText` (none: the agent speaks first): replies and tool calls until it
   * has said what it has to say; after the end-call tool, one more reply without tools (the goodbye).
   */
  const respond = <E>(userText: string | undefined, out: ReplySink<E>): Effect.Effect<void, AiError.AiError | E | NoLanguageModel> =>
    Effect.gen(function*() {
      if (userText !== undefined) history.push({ role: "user", content: [{ type: "text", text: userText }] })
      if (Option.isNone(model)) return yield* Effect.fail(new NoLanguageModel())
      for (let i = 0; i < MAX_HOPS && state.ending === undefined; i++) {
        if ((yield* hop(model.value, out, true)) === 0) return
      }
      // A transfer node's message was the last word: no goodbye from the model.
      if (state.ending !== undefined && state.transfer === undefined) yield* hop(model.value, out, false)
    })

  return {
    model,
    opening: started.opening,
    openingEvents: started.events,
    state: () => state,
    /** The conversation's gathered context, with more keys (opt-out, voicemail). */
    gather: (more: Readonly<Record<string, unknown>>) => {
      state = { ...state, gatheredContext: { ...state.gatheredContext, ...more } }
    },
    /** Ends the conversation (the first reason wins). */
    end: (reason: string, disposition?: string) => {
      state = endConversation(state, reason, disposition)
    },
    /** What the agent said outside the model (the greeting, as far as the caller heard it). */
    said: (text: string) => {
      if (text !== "") history.push({ role: "assistant", content: [{ type: "text", text }] })
    },
    respond,
    tokens: (): Tokens => tokens,
    toolCalls: () => toolCalls
  } as const
}

export type Responder = ReturnType<typeof makeResponder>

/** The responder has no language model to answer with. */
export class NoLanguageModel extends Schema.TaggedError<NoLanguageModel>()("NoLanguageModel", {}) {
  override get message() {
    return "no language model configured: set AGENTLINE_LLM (see docs/voice.md)"
  }
}
