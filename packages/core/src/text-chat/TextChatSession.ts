/**
 * A text chat session as stored (docs/text-chat.md): its turns, each with the conversation's state
 * after it (the node, what was gathered, whether it is ending) and the language-model messages it
 * added, so that the session can be rewound to any turn; and the usage of every turn ever taken
 * (rewound turns were paid for too).
 */
import { Schema } from "effect"

const Json = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** What the language model was told and answered, in the session's own terms. */
export const ChatMessage = Schema.Union(
  Schema.TaggedStruct("user", { text: Schema.String }),
  Schema.TaggedStruct("assistant", {
    text: Schema.String,
    tool_calls: Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String, params: Schema.Unknown }))
  }),
  Schema.TaggedStruct("tool", { id: Schema.String, name: Schema.String, result: Schema.String })
)
export type ChatMessage = typeof ChatMessage.Type

export const ChatText = Schema.Struct({ text: Schema.String, created_at: Schema.String })

export const ChatTurn = Schema.Struct({
  id: Schema.String,
  /** `completed`, or `failed` when the language model could not answer (the turn says nothing). */
  status: Schema.Literal("completed", "failed"),
  /** Null for the opening turn (the agent speaks first). */
  user_message: Schema.NullOr(ChatText),
  assistant_message: Schema.NullOr(ChatText),
  /** The conversation after this turn. */
  node_id: Schema.String,
  node_name: Schema.String,
  gathered_context: Json,
  ending: Schema.NullOr(Schema.String),
  messages: Schema.Array(ChatMessage),
  error: Schema.optional(Schema.String)
})
export type ChatTurn = typeof ChatTurn.Type

export const TextChatData = Schema.Struct({
  turns: Schema.Array(ChatTurn),
  usage: Schema.Struct({ input_tokens: Schema.Number, output_tokens: Schema.Number })
})
export type TextChatData = typeof TextChatData.Type

export interface StoredTextChat {
  readonly workflow_run_id: number
  readonly organization_id: number
  readonly workflow_id: number
  readonly revision: number
  readonly state: "active" | "completed"
  readonly data: TextChatData
  readonly created_at: string
  readonly updated_at: string
}
