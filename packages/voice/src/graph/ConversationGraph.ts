/**
 * A decoded agent definition indexed for running a call: nodes by id, outgoing edges by source node,
 * the start node and the optional global node. Built once per call; every step of the executor reads it.
 */
import type { WorkflowDefinition, WorkflowEdge, WorkflowNode } from "@agentline/core/workflows/WorkflowDefinition"
import { Either, Schema } from "effect"

export type StartCallNode = Extract<WorkflowNode, { readonly type: "startCall" }>
export type GlobalNode = Extract<WorkflowNode, { readonly type: "globalNode" }>
/** A node where the agent hands the caller to a person (reached by an edge, ends the agent's part). */
export type TransferNode = Extract<WorkflowNode, { readonly type: "transfer" }>
/** The nodes a conversation can be at: they have a prompt, tools and extraction. */
export type ConversationNode = Extract<WorkflowNode, { readonly type: "startCall" | "agentNode" | "endCall" }>

export interface ConversationGraph {
  readonly start: StartCallNode
  readonly global: GlobalNode | undefined
  readonly nodes: ReadonlyMap<string, ConversationNode>
  /** Transfer nodes, by id: an edge into one is a transition tool that transfers the call. */
  readonly transfers: ReadonlyMap<string, TransferNode>
  /** In definition order, which is the order the LLM sees the transition tools in. */
  readonly outgoing: ReadonlyMap<string, ReadonlyArray<WorkflowEdge>>
}

/** Why a definition cannot be run as a conversation (saved definitions never hit this; stored JSON might). */
export class UnrunnableDefinition extends Schema.TaggedError<UnrunnableDefinition>()("UnrunnableDefinition", {
  message: Schema.String
}) {}

const isConversationNode = (node: WorkflowNode): node is ConversationNode =>
  node.type === "startCall" || node.type === "agentNode" || node.type === "endCall"

export const conversationGraph = (definition: WorkflowDefinition): Either.Either<ConversationGraph, UnrunnableDefinition> => {
  const starts = definition.nodes.filter((n): n is StartCallNode => n.type === "startCall")
  if (starts.length !== 1) {
    return Either.left(new UnrunnableDefinition({ message: `the definition needs exactly one startCall node, it has ${starts.length}` }))
  }
  const nodes = new Map<string, ConversationNode>()
  const transfers = new Map<string, TransferNode>()
  for (const node of definition.nodes) {
    if (isConversationNode(node)) nodes.set(node.id, node)
    else if (node.type === "transfer") transfers.set(node.id, node)
  }
  const outgoing = new Map<string, Array<WorkflowEdge>>()
  for (const edge of definition.edges) {
    // Edges into nodes a conversation cannot be at (webhook, qa, ...) are refused on save; ignore them here.
    if (!nodes.has(edge.source) || !(nodes.has(edge.target) || transfers.has(edge.target))) continue
    const list = outgoing.get(edge.source)
    if (list === undefined) outgoing.set(edge.source, [edge])
    else list.push(edge)
  }
  return Either.right({
    start: starts[0]!,
    global: definition.nodes.find((n): n is GlobalNode => n.type === "globalNode"),
    nodes,
    transfers,
    outgoing
  })
}
