/**
 * The public embed (docs/embed.md): a token per agent that lets a website's visitors talk to the
 * agent's published version through a widget, from the origins the token allows, in the reference's
 * shapes (`/workflow/{id}/embed-token`, `/public/embed/init`, `/public/embed/config/{token}`).
 */
import { RunId, WorkflowId } from "../Ids.js"
import { Schema } from "effect"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * Create or update the agent's embed token. On creation `allowed_domains` is required (at least one
 * origin, or `"*"` for any); on update a field left out (or null) keeps its value, except
 * `expires_in_days: null`, which makes the token never expire.
 */
export const EmbedTokenRequest = Schema.Struct({
  /** Origins the widget may run on: `https://shop.example.com`, `example.com` (http and https, and `www.`), `*.example.com`, `localhost:5173`, or `*`. */
  allowed_domains: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  /** The widget's look and words (`widgetType`, `theme`, `position`, `buttonText`, `buttonColor`, `size`, `autoStart`, `texts`), shown to visitors. */
  settings: Schema.optional(Schema.NullOr(JsonObject)),
  /** The most sessions the token may start in all; null: no limit. */
  usage_limit: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.between(1, 1_000_000_000, {
    message: () => "usage_limit must be an integer from 1 to 1000000000, or null for no limit"
  })))),
  /** Days until the token stops working (30 when a token is created without it); null: never. */
  expires_in_days: Schema.optional(Schema.NullOr(Schema.Int.pipe(Schema.between(1, 3650, {
    message: () => "expires_in_days must be an integer from 1 to 3650, or null for a token that does not expire"
  }))))
})
export type EmbedTokenRequest = typeof EmbedTokenRequest.Type

export const EmbedTokenResponse = Schema.Struct({
  id: Schema.Int,
  token: Schema.String,
  allowed_domains: Schema.Array(Schema.String),
  settings: Schema.NullOr(JsonObject),
  is_active: Schema.Boolean,
  usage_count: Schema.Int,
  usage_limit: Schema.NullOr(Schema.Int),
  expires_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  /** The HTML a site owner pastes into their pages. */
  embed_script: Schema.String
})
export type EmbedTokenResponse = typeof EmbedTokenResponse.Type

export const EmbedTokenRevoked = Schema.Struct({ message: Schema.String })

/** Every visitor-facing text the widget shows (the reference's `WidgetTexts`), after the token's `settings.texts`. */
export const WidgetTexts = Schema.Struct({
  endChatText: Schema.String,
  conversationEndedText: Schema.String,
  startNewChatText: Schema.String,
  chatRetryText: Schema.String,
  chatInputPlaceholder: Schema.String,
  sendMessageLabel: Schema.String,
  closeChatLabel: Schema.String,
  voiceConnectingText: Schema.String,
  voiceEndCallText: Schema.String,
  voiceRetryText: Schema.String,
  voiceReadyTitle: Schema.String,
  voiceConnectingSubtext: Schema.String,
  voiceConnectedTitle: Schema.String,
  voiceConnectedSubtext: Schema.String,
  voiceCallEndedTitle: Schema.String,
  voiceCallEndedSubtext: Schema.String,
  voiceConnectionFailedTitle: Schema.String,
  voiceConnectionFailedSubtext: Schema.String,
  voiceConnectionLostTitle: Schema.String,
  voiceConnectionLostSubtext: Schema.String
})
export type WidgetTexts = typeof WidgetTexts.Type

export const WidgetType = Schema.Literal("voice", "chat")
export type WidgetType = typeof WidgetType.Type

/**
 * What the widget needs to draw itself (`GET /public/embed/config/{token}`): the token's settings and
 * the agent's name, nothing else of the organization.
 */
export const EmbedConfig = Schema.Struct({
  workflow_id: WorkflowId,
  /** The agent's name, the one thing of the organization a visitor sees. */
  agent_name: Schema.String,
  widget_type: WidgetType,
  settings: JsonObject,
  texts: WidgetTexts,
  theme: Schema.String,
  position: Schema.String,
  button_text: Schema.String,
  button_color: Schema.String,
  size: Schema.String,
  auto_start: Schema.Boolean,
  turn_enabled: Schema.Boolean,
  force_turn_relay: Schema.Boolean
})
export type EmbedConfig = typeof EmbedConfig.Type

export const InitEmbedRequest = Schema.Struct({
  token: Schema.String.pipe(Schema.minLength(1, { message: () => "token is required" }), Schema.maxLength(200)),
  /**
   * Values the page gives the conversation (`{{name}}` in prompts): at most 20 keys (letters, digits
   * and `_`), each a string (up to 500 characters), number or boolean.
   */
  context_variables: Schema.optional(Schema.NullOr(JsonObject))
})
export type InitEmbedRequest = typeof InitEmbedRequest.Type

export const InitEmbedResponse = Schema.Struct({
  /** The session's credential for the widget's conversation (web call or text chat); valid until `expires_at`. */
  session_token: Schema.String,
  workflow_run_id: RunId,
  config: JsonObject,
  widget_type: WidgetType,
  /** The opening of a chat session (the reference's field); null until text chat is available. */
  chat_session: Schema.NullOr(JsonObject),
  expires_at: Schema.String
})
export type InitEmbedResponse = typeof InitEmbedResponse.Type
