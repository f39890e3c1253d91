/**
 * The graph executor: a call's conversation as a state machine over a decoded definition. Every
 * function is pure; the runtime feeds it the LLM's tool calls and acts on what comes back (speaks the
 * utterance, swaps the system prompt and tools, hangs up once `ending` is set and the goodbye is played).
 */
import type { ConversationGraph, ConversationNode, TransferNode } from "./ConversationGraph.js"
import { decodeArguments, extractValues } from "./Extraction.js"
import type { FeedbackEvent } from "./FeedbackEvents.js"
import { allowsInterrupt, functionCallEnd, functionCallStart, nodeTransition, pipelineError } from "./FeedbackEvents.js"
import type { Opening, Utterance } from "./Prompt.js"
import { opening, systemPrompt, templateContext, utterance } from "./Prompt.js"
import type { Tool } from "./Tools.js"
import { nodeTools } from "./Tools.js"

/** Why the call ends: a Pipecat EndTaskReason as the reference records it (`end_call_tool`, `user_hangup`, ...). */
export type EndReason = string

export interface ConversationState {
  readonly node: ConversationNode
  readonly initialContext: Readonly<Record<string, unknown>>
  readonly gatheredContext: Readonly<Record<string, unknown>>
  /** Set once the call is to end: the agent finishes what it is saying, then the runtime hangs up. */
  readonly ending: EndReason | undefined
  /** Set with `ending` (`transfer_call`) when the conversation reached a transfer node: the runtime transfers the call. */
  readonly transfer?: TransferNode | undefined
}

/** What the LLM works with at the current node. */
export interface Turn {
  readonly systemPrompt: string
  readonly tools: ReadonlyArray<Tool>
  readonly allowInterrupt: boolean
}

export const turn = (graph: ConversationGraph, state: ConversationState): Turn => ({
  systemPrompt: systemPrompt(graph, state.node, templateContext(state.initialContext, state.gatheredContext)),
  tools: nodeTools(graph, state.node),
  allowInterrupt: allowsInterrupt(state.node)
})

export interface Started {
  readonly state: ConversationState
  readonly opening: Opening
  readonly events: ReadonlyArray<FeedbackEvent>
}

export const startConversation = (
  graph: ConversationGraph,
  initialContext: Readonly<Record<string, unknown>>,
  gatheredContext: Readonly<Record<string, unknown>> = {}
): Started => ({
  state: { node: graph.start, initialContext, gatheredContext, ending: undefined },
  opening: opening(graph, templateContext(initialContext, gatheredContext)),
  events: [nodeTransition(graph.start, null)]
})

/** A function call as the LLM made it; `arguments` is the JSON text or the already parsed value. */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: unknown
}

export interface Step {
  readonly state: ConversationState
  /** The tool's result, given back to the LLM as the function's output. */
  readonly result: string
  /** Said before the LLM goes on (an edge's `transition_speech`). */
  readonly speech: Utterance | undefined
  readonly events: ReadonlyArray<FeedbackEvent>
}

const nonBlank = (u: unknown): u is string => typeof u === "string" && u.trim() !== ""

/**
 * Sets `ending` and the disposition: the one the conversation gave (`disposition`, else one already
 * gathered), else the end reason. `mapped_call_disposition` follows it, as no mapping is configured yet;
 * the workflow's `call_disposition_codes` are learned from it. The disposition also joins `call_tags`,
 * as in the reference (tags already there are kept).
 */
export const endConversation = (state: ConversationState, reason: EndReason, disposition?: string): ConversationState => {
  if (state.ending !== undefined) return state
  const chosen = nonBlank(disposition)
    ? disposition.trim()
    : nonBlank(state.gatheredContext.call_disposition)
    ? state.gatheredContext.call_disposition
    : reason
  return {
    ...state,
    ending: reason,
    gatheredContext: {
      ...state.gatheredContext,
      call_disposition: chosen,
      mapped_call_disposition: chosen,
      call_tags: withTag(state.gatheredContext.call_tags, chosen)
    }
  }
}

const withTag = (tags: unknown, tag: string): ReadonlyArray<unknown> => {
  const list: ReadonlyArray<unknown> = Array.isArray(tags) ? tags : []
  return list.includes(tag) ? list : [...list, tag]
}

const failed = (state: ConversationState, call: ToolCall, message: string): Step => ({
  state,
  result: message,
  speech: undefined,
  events: [functionCallStart(call.name, call.id), functionCallEnd(call.name, call.id, message), pipelineError(message, false)]
})

const done = (
  state: ConversationState,
  call: ToolCall,
  result: string,
  extra: ReadonlyArray<FeedbackEvent> = [],
  speech?: Utterance
): Step => ({
  state,
  result,
  speech,
  events: [functionCallStart(call.name, call.id), ...extra, functionCallEnd(call.name, call.id, result)]
})

/**
 * Applies one tool call of the LLM at the current node. A call the node does not offer, or made after the
 * call began ending, changes nothing and tells the LLM why (and logs an error): the model can recover,
 * the caller hears no failure.
 */
export const applyToolCall = (graph: ConversationGraph, state: ConversationState, call: ToolCall): Step => {
  if (state.ending !== undefined) return failed(state, call, `The call is already ending; ${call.name} was not run.`)
  const tools = nodeTools(graph, state.node)
  const tool = tools.find((t) => t.name === call.name)
  if (tool === undefined) {
    return failed(state, call, `There is no tool named ${call.name} here; the tools are ${tools.map((t) => t.name).join(", ")}.`)
  }
  const args = decodeArguments(call.arguments)
  switch (tool.kind._tag) {
    case "Transition": {
      const edge = tool.kind.edge
      const transfer = graph.transfers.get(edge.target)
      if (transfer !== undefined) return transferStep(state, call, transfer)
      const target = graph.nodes.get(edge.target)!
      const next: ConversationState = { ...state, node: target }
      const context = templateContext(state.initialContext, state.gatheredContext)
      const speech = utterance(
        edge.data.transition_speech_type,
        edge.data.transition_speech,
        edge.data.transition_speech_recording_id,
        context
      )
      return done(next, call, `Moved to ${target.data.name}.`, [nodeTransition(target, state.node)], speech)
    }
    case "EndCall": {
      const disposition = args._tag === "Object" ? args.value.disposition : undefined
      const next = endConversation(state, "end_call_tool", typeof disposition === "string" ? disposition : undefined)
      return done(next, call, "The call is ending: say a short, polite goodbye and nothing else.")
    }
    case "Extraction": {
      if (args._tag === "Invalid") return failed(state, call, `The arguments of ${call.name} must be a JSON object: ${args.reason}.`)
      const extracted = extractValues(state.node.data.extraction_variables ?? [], args.value)
      const next: ConversationState = { ...state, gatheredContext: { ...state.gatheredContext, ...extracted.values } }
      return done(next, call, extracted.summary)
    }
  }
}

/** Why the call ends when the conversation reached a transfer node (the run's `end_reason`). */
export const TRANSFER_END_REASON = "transfer_call"

/**
 * The conversation reached a transfer node: the agent says the node's message (its words, not the
 * model's), the runtime transfers the call, and nothing more is said. Disposition `transferred`.
 */
const transferStep = (state: ConversationState, call: ToolCall, node: TransferNode): Step => {
  const next: ConversationState = { ...endConversation(state, TRANSFER_END_REASON, "transferred"), transfer: node }
  const speech = utterance("text", node.data.message, null, templateContext(state.initialContext, state.gatheredContext))
  return done(
    next,
    call,
    `The caller is being transferred (${node.data.name}): say nothing more.`,
    [transferReached(node, state.node)],
    speech
  )
}

/** The node-transition event of a transfer node, in the reference's shape. */
const transferReached = (node: TransferNode, previous: ConversationNode): FeedbackEvent => ({
  type: "rtf-node-transition",
  payload: {
    node_id: node.id,
    node_name: node.data.name,
    previous_node_id: previous.id,
    previous_node_name: previous.data.name,
    allow_interrupt: false
  }
})
