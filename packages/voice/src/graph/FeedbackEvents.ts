/**
 * Entries of a run's `logs.realtime_feedback_events`, in the reference's `{type, payload}` shape. The
 * executor is pure, so it produces them without a time; whoever appends them to the run adds
 * `timestamp` with `stamp` (the clock belongs to the runtime).
 */
import type { ConversationNode } from "./ConversationGraph.js"

export interface NodeTransitionEvent {
  readonly type: "rtf-node-transition"
  readonly payload: {
    readonly node_id: string
    readonly node_name: string
    readonly previous_node_id: string | null
    readonly previous_node_name: string | null
    readonly allow_interrupt: boolean
  }
}

export interface FunctionCallStartEvent {
  readonly type: "rtf-function-call-start"
  readonly payload: { readonly function_name: string; readonly tool_call_id: string }
}

export interface FunctionCallEndEvent {
  readonly type: "rtf-function-call-end"
  readonly payload: { readonly function_name: string; readonly tool_call_id: string; readonly result: string }
}

export interface PipelineErrorEvent {
  readonly type: "rtf-pipeline-error"
  readonly payload: { readonly error: string; readonly fatal: boolean }
}

/** The agent asked the provider to transfer the call (`pipeline/Transfer.ts`); the result is the run's `logs.transfer`. */
export interface TransferEvent {
  readonly type: "rtf-transfer"
  readonly payload: {
    readonly node_id: string
    readonly node_name: string
    readonly transfer_id: string
    readonly target: string
    readonly mode: "cold" | "warm"
    readonly status: string
  }
}

export type FeedbackEvent = NodeTransitionEvent | FunctionCallStartEvent | FunctionCallEndEvent | PipelineErrorEvent | TransferEvent

/**
 * The reference's default for `allow_interrupt` on a node is false; the agent spec's default is true.
 * The node's own setting decides; absent means the reference's false.
 */
export const allowsInterrupt = (node: ConversationNode): boolean => node.data.allow_interrupt ?? false

export const nodeTransition = (node: ConversationNode, previous: ConversationNode | null): NodeTransitionEvent => ({
  type: "rtf-node-transition",
  payload: {
    node_id: node.id,
    node_name: node.data.name,
    previous_node_id: previous?.id ?? null,
    previous_node_name: previous?.data.name ?? null,
    allow_interrupt: allowsInterrupt(node)
  }
})

export const functionCallStart = (functionName: string, toolCallId: string): FunctionCallStartEvent => ({
  type: "rtf-function-call-start",
  payload: { function_name: functionName, tool_call_id: toolCallId }
})

export const functionCallEnd = (functionName: string, toolCallId: string, result: string): FunctionCallEndEvent => ({
  type: "rtf-function-call-end",
  payload: { function_name: functionName, tool_call_id: toolCallId, result }
})

export const pipelineError = (error: string, fatal: boolean): PipelineErrorEvent => ({
  type: "rtf-pipeline-error",
  payload: { error, fatal }
})

export const stamp = <E extends { readonly type: string }>(event: E, at: Date): E & { readonly timestamp: string } => ({
  ...event,
  timestamp: at.toISOString()
})
