/**
 * The pure side of text chat (docs/text-chat.md): a session's turns as the graph executor's state and
 * the language model's history, rewinding, and what a session shows (the API's `session_data` and
 * `checkpoint`, the public embed's turns, the run's transcript). Nothing here talks to a model or a
 * database.
 */
import type { StoredRun } from "@agentline/core/runs/Run"
import type { ChatMessage, ChatTurn, StoredTextChat, TextChatData } from "@agentline/core/text-chat/TextChatSession"
import type { Prompt } from "@effect/ai"
import { Either } from "effect"
import type { ConversationState } from "../graph/Conversation.js"
import type { ConversationGraph } from "../graph/ConversationGraph.js"

export const emptyData: TextChatData = { turns: [], usage: { input_tokens: 0, output_tokens: 0 } }

/**
 * The conversation after the last turn: its node (the start node when there is none, or when the
 * node is not in this version), what was gathered, and whether it is ending.
 */
export const stateAfter = (
  graph: ConversationGraph,
  turns: ReadonlyArray<ChatTurn>,
  initialContext: Readonly<Record<string, unknown>>
): ConversationState => {
  const last = turns.at(-1)
  if (last === undefined) return { node: graph.start, initialContext, gatheredContext: {}, ending: undefined }
  return {
    node: graph.nodes.get(last.node_id) ?? graph.start,
    initialContext,
    gatheredContext: last.gathered_context,
    ending: last.ending ?? undefined
  }
}

/** One stored message as the language model's prompt message. */
export const promptMessage = (message: ChatMessage): Prompt.MessageEncoded => {
  switch (message._tag) {
    case "user":
      return { role: "user", content: [{ type: "text", text: message.text }] }
    case "assistant":
      return {
        role: "assistant",
        content: [
          ...(message.text !== "" ? [{ type: "text" as const, text: message.text }] : []),
          ...message.tool_calls.map((call) => ({ type: "tool-call" as const, id: call.id, name: call.name, params: call.params, providerExecuted: false }))
        ]
      }
    case "tool":
      return { role: "tool", content: [{ type: "tool-result", id: message.id, name: message.name, result: message.result, isFailure: false, providerExecuted: false }] }
  }
}

/** The language model's history: every turn's messages, in order. */
export const history = (turns: ReadonlyArray<ChatTurn>): ReadonlyArray<Prompt.MessageEncoded> =>
  turns.flatMap((turn) => turn.messages.map(promptMessage))

/**
 * The session back at `cursorTurnId`: that turn is kept and every later one dropped. `null` goes back to
 * the opening (the first turn, the agent's greeting, is kept). The usage stays: those turns were paid for.
 */
export const rewind = (data: TextChatData, cursorTurnId: string | null): Either.Either<TextChatData, string> => {
  if (cursorTurnId === null) return Either.right({ ...data, turns: data.turns.slice(0, 1) })
  const index = data.turns.findIndex((turn) => turn.id === cursorTurnId)
  if (index < 0) return Either.left(`There is no turn '${cursorTurnId.slice(0, 80)}' in this session`)
  return Either.right({ ...data, turns: data.turns.slice(0, index + 1) })
}

/** A turn as a visitor sees it: no state, no model messages. */
export const publicTurn = (turn: ChatTurn) => ({
  id: turn.id,
  status: turn.status,
  user_message: turn.user_message,
  assistant_message: turn.assistant_message
})

/** Where the conversation is: the API's `checkpoint`. */
export const checkpoint = (data: TextChatData) => {
  const last = data.turns.at(-1)
  return {
    turn_id: last?.id ?? null,
    node_id: last?.node_id ?? null,
    node_name: last?.node_name ?? null,
    ending: last?.ending ?? null,
    turn_count: data.turns.length
  }
}

/** The transcript of the turns kept: a line per message, as a phone call's (`role`, `text`, when). */
export const transcript = (turns: ReadonlyArray<ChatTurn>) =>
  turns.flatMap((turn) => [
    ...(turn.user_message !== null ? [{ role: "user" as const, text: turn.user_message.text, created_at: turn.user_message.created_at }] : []),
    ...(turn.assistant_message !== null && turn.assistant_message.text !== ""
      ? [{ role: "assistant" as const, text: turn.assistant_message.text, created_at: turn.assistant_message.created_at }]
      : [])
  ])

/** The reference's plain text transcript: `[<ISO time>] user: …` lines. */
export const transcriptText = (turns: ReadonlyArray<ChatTurn>): string => {
  const lines = transcript(turns).map((line) => `[${line.created_at}] ${line.role}: ${line.text}`)
  return lines.length === 0 ? "" : lines.join("\n") + "\n"
}

/** The session as the API answers it. */
export const view = (run: StoredRun, session: StoredTextChat) => ({
  workflow_run_id: run.id,
  workflow_id: run.workflow_id,
  name: run.name,
  mode: run.mode,
  state: session.state,
  is_completed: session.state === "completed",
  revision: session.revision,
  initial_context: run.initial_context,
  gathered_context: session.data.turns.at(-1)?.gathered_context ?? {},
  annotations: run.annotations,
  session_data: {
    turns: session.data.turns.map((turn) => ({ ...publicTurn(turn), node_id: turn.node_id, node_name: turn.node_name })),
    usage: session.data.usage
  },
  checkpoint: checkpoint(session.data),
  created_at: session.created_at,
  updated_at: session.updated_at
})

/** The visitor's view (public embed): the turns' words, nothing of the agent's state. */
export const publicView = (session: StoredTextChat) => ({
  revision: session.revision,
  state: session.state,
  is_completed: session.state === "completed",
  turns: session.data.turns.map(publicTurn)
})
