/** What can go wrong with text chat sessions (docs/text-chat.md). */
import { Schema } from "effect"

/** No text chat session with that run in the organization's agent (or in the embed session). */
export class TextChatNotFound extends Schema.TaggedError<TextChatNotFound>()("TextChatNotFound", { runId: Schema.Number }) {
  override get message() {
    return `Text chat session ${this.runId} not found`
  }
}

/** The request named a revision the session is not at any more (another change came first). */
export class TextChatRevisionConflict extends Schema.TaggedError<TextChatRevisionConflict>()("TextChatRevisionConflict", {
  expected: Schema.Number,
  current: Schema.Number
}) {
  override get message() {
    return `The session is at revision ${this.current}, not ${this.expected}: read it again and retry`
  }
}

/** The session ended (by its user or the agent's end call): it takes no more messages. */
export class TextChatEnded extends Schema.TaggedError<TextChatEnded>()("TextChatEnded", {}) {
  override get message() {
    return "This text chat session has ended"
  }
}

/** A rewind named a turn the session does not have. */
export class TextChatUnknownTurn extends Schema.TaggedError<TextChatUnknownTurn>()("TextChatUnknownTurn", { turnId: Schema.String }) {
  override get message() {
    return `There is no turn '${this.turnId.slice(0, 80)}' in this session`
  }
}

/** The agent cannot talk: no language model configured, or its version cannot be run as a conversation. */
export class TextChatUnavailable extends Schema.TaggedError<TextChatUnavailable>()("TextChatUnavailable", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

/** The embed session cannot chat: expired, ended, its token revoked, not a chat session, or another page's. */
export class EmbedChatRefused extends Schema.TaggedError<EmbedChatRefused>()("EmbedChatRefused", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}
