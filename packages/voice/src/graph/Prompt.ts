/**
 * What the agent says and is told at a node: the opening of the call (greeting, delayed start) and the
 * system prompt of the current node, with `{{template}}` variables rendered from the call's context.
 */
import { renderTemplate } from "@agentline/core/workflows/Template"
import type { ConversationGraph, ConversationNode } from "./ConversationGraph.js"

/**
 * The variables a template sees: `initial_context` (the contact's data) and `gathered_context` (what the
 * call has extracted so far) flat, gathered values winning because they are what the caller just said
 * (a corrected name beats the CSV's), and both nested for dotted paths (`{{gathered_context.city}}`).
 */
export const templateContext = (
  initialContext: Readonly<Record<string, unknown>>,
  gatheredContext: Readonly<Record<string, unknown>>
): Record<string, unknown> => ({
  ...initialContext,
  ...gatheredContext,
  initial_context: initialContext,
  gathered_context: gatheredContext
})

/** The reference's `add_global_prompt` defaults to true: a node opts out of the global prompt, not in. */
export const addsGlobalPrompt = (node: ConversationNode): boolean => node.data.add_global_prompt ?? true

/** The node's prompt, preceded by the global node's prompt where the node adds it. Both rendered. */
export const systemPrompt = (
  graph: ConversationGraph,
  node: ConversationNode,
  context: Readonly<Record<string, unknown>>
): string => {
  const own = renderTemplate(node.data.prompt, context)
  return graph.global !== undefined && addsGlobalPrompt(node)
    ? `${renderTemplate(graph.global.data.prompt, context)}\n\n${own}`
    : own
}

/**
 * Something the agent says without the LLM: rendered text, or an uploaded recording played as is;
 * `fallbackText` is said instead when the recording cannot be played (deleted since, file gone).
 */
export type Utterance =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Recording"; readonly recordingId: string; readonly fallbackText: string | undefined }

/** The reference's `delayed_start_duration` default, in seconds. */
export const DEFAULT_START_DELAY_SECONDS = 2

export interface Opening {
  /** Seconds to wait after the call connects before the agent speaks; 0 when `delayed_start` is off. */
  readonly delaySeconds: number
  /** The greeting; none means the LLM speaks first from the start node's prompt. */
  readonly greeting: Utterance | undefined
}

const nonBlank = (s: string | null | undefined): s is string => typeof s === "string" && s.trim() !== ""

/**
 * Picks text or recording by `type`; a recording chosen without its id falls back to the text (and a
 * text that renders blank says nothing), so a half-edited node still lets the call go on.
 */
export const utterance = (
  type: "text" | "audio" | null | undefined,
  text: string | null | undefined,
  recordingId: string | null | undefined,
  context: Readonly<Record<string, unknown>>
): Utterance | undefined => {
  const rendered = nonBlank(text) ? renderTemplate(text, context) : undefined
  const spoken = nonBlank(rendered) ? rendered : undefined
  if (type === "audio" && nonBlank(recordingId)) return { _tag: "Recording", recordingId, fallbackText: spoken }
  return spoken === undefined ? undefined : { _tag: "Text", text: spoken }
}

/**
 * A contact's `initial_context.greeting_override` (from the campaign CSV's `greeting_override_*`
 * columns): `{type: "text", text}` or `{type: "audio", recording_id}`; anything else is no override.
 * An audio override falls back to the agent's own text greeting when it cannot be played.
 */
export const greetingOverride = (
  override: unknown,
  agentGreeting: Utterance | undefined,
  context: Readonly<Record<string, unknown>>
): Utterance | undefined => {
  if (typeof override !== "object" || override === null) return undefined
  const o = override as Record<string, unknown>
  const agentText = agentGreeting?._tag === "Text" ? agentGreeting.text : agentGreeting?.fallbackText
  if (o.type === "text" && typeof o.text === "string") return utterance("text", o.text, undefined, context)
  if (o.type === "audio" && nonBlank(o.recording_id as string | undefined)) {
    return { _tag: "Recording", recordingId: o.recording_id as string, fallbackText: agentText }
  }
  return undefined
}

export const opening = (graph: ConversationGraph, context: Readonly<Record<string, unknown>>): Opening => {
  const data = graph.start.data
  const own = utterance(data.greeting_type, data.greeting, data.greeting_recording_id, context)
  const initial = context.initial_context as Readonly<Record<string, unknown>> | undefined
  return {
    delaySeconds: data.delayed_start === true ? data.delayed_start_duration ?? DEFAULT_START_DELAY_SECONDS : 0,
    greeting: greetingOverride(initial?.greeting_override, own, context) ?? own
  }
}
