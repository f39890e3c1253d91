/**
 * The port that sends one webhook request. The server's adapter (`@agentline/http`) sends it over
 * node:http(s), connecting only to addresses `isPrivateAddress` allows (unless `allowPrivate`), so a
 * name that resolves to an internal address is refused at connection time, not just when saved.
 */
import { Context, type Effect } from "effect"

export interface OutgoingWebhook {
  /** POST for event webhooks; a workflow node says its own. */
  readonly method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** Null: no body (a node's GET or DELETE). */
  readonly body: string | null
  readonly timeoutMillis: number
  readonly allowPrivate: boolean
}

/** The receiver's answer: its status, or why there was none (`status: null`). Never fails. */
export interface WebhookAnswer {
  readonly status: number | null
  readonly error: string | null
  readonly latencyMillis: number
}

export class WebhookTransport extends Context.Tag("@agentline/core/WebhookTransport")<
  WebhookTransport,
  { readonly send: (request: OutgoingWebhook) => Effect.Effect<WebhookAnswer> }
>() {}
