/**
 * Text chat sessions (docs/text-chat.md) in the reference's shapes: a conversation with an agent's
 * graph by text, recorded as a run; and the public embed's chat (`/public/embed/chat/{session_token}`).
 */
import { Schema } from "effect"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const Revision = Schema.optional(Schema.NullOr(Schema.Int))

export const CreateTextChatSessionRequest = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(255)))),
  /** Variables for the agent's prompts, over the agent's `template_context_variables`. */
  initial_context: Schema.optional(Schema.NullOr(JsonObject)),
  annotations: Schema.optional(Schema.NullOr(JsonObject))
})

export const AppendTextChatMessageRequest = Schema.Struct({
  text: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4000)),
  /** The revision the client read; the request is refused (409) when the session changed since. */
  expected_revision: Revision
})

export const EndTextChatSessionRequest = Schema.Struct({ expected_revision: Revision })

export const RewindTextChatSessionRequest = Schema.Struct({
  /** The turn to go back to (kept; later turns are dropped); null: back to the agent's opening. */
  cursor_turn_id: Schema.optional(Schema.NullOr(Schema.String)),
  expected_revision: Revision
})

const Message = Schema.Struct({ text: Schema.String, created_at: Schema.NullOr(Schema.String) })

export const PublicEmbedChatTurn = Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  user_message: Schema.NullOr(Message),
  assistant_message: Schema.NullOr(Message)
})

export const TextChatTurn = Schema.Struct({
  ...PublicEmbedChatTurn.fields,
  /** The agent's node after this turn. */
  node_id: Schema.String,
  node_name: Schema.String
})

export const WorkflowRunTextSessionResponse = Schema.Struct({
  workflow_run_id: Schema.Int,
  workflow_id: Schema.Int,
  name: Schema.String,
  mode: Schema.String,
  /** `active` or `completed`. */
  state: Schema.String,
  is_completed: Schema.Boolean,
  /** Grows with every change of the session. */
  revision: Schema.Int,
  initial_context: Schema.NullOr(JsonObject),
  gathered_context: Schema.NullOr(JsonObject),
  annotations: Schema.NullOr(JsonObject),
  session_data: Schema.Struct({
    turns: Schema.Array(TextChatTurn),
    usage: Schema.Struct({ input_tokens: Schema.Number, output_tokens: Schema.Number })
  }),
  checkpoint: Schema.Struct({
    turn_id: Schema.NullOr(Schema.String),
    node_id: Schema.NullOr(Schema.String),
    node_name: Schema.NullOr(Schema.String),
    ending: Schema.NullOr(Schema.String),
    turn_count: Schema.Int
  }),
  created_at: Schema.String,
  updated_at: Schema.NullOr(Schema.String)
})

export const PublicEmbedChatSessionResponse = Schema.Struct({
  revision: Schema.Int,
  state: Schema.String,
  is_completed: Schema.Boolean,
  turns: Schema.Array(PublicEmbedChatTurn)
})

export const PublicEmbedChatMessageRequest = Schema.Struct({
  text: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4000)),
  expected_revision: Revision
})

export const PublicEmbedChatEndRequest = Schema.Struct({ expected_revision: Revision })
