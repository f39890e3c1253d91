/**
 * Event webhooks' wire shapes: an organization's endpoints (where events are sent, which ones), and
 * the delivery log of each. Deliveries follow the Standard Webhooks specification
 * (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` and `webhook-signature`
 * headers, signed with the endpoint's `whsec_` secret, which is shown once, on creation and rotation.
 */
import { Schema } from "effect"
import { WebhookDeliveryId, WebhookEndpointId } from "../Ids.js"

/**
 * What an endpoint can subscribe to. `campaign.state_changed` covers every change of a campaign's
 * state, the circuit breaker's trips included (`action: "circuit_breaker_tripped"`, with its details).
 */
export const WebhookEventType = Schema.Literal("run.started", "run.ended", "campaign.state_changed", "campaign.completed")
export type WebhookEventType = typeof WebhookEventType.Type

const Url = Schema.String.pipe(
  Schema.maxLength(2048, { message: () => "url must be at most 2048 characters" }),
  Schema.filter((s) => {
    try {
      const u = new URL(s)
      return (u.protocol === "http:" || u.protocol === "https:") && u.username === "" && u.password === ""
        ? true
        : "url must be an http(s) URL without credentials, e.g. https://example.com/hooks/agentline"
    } catch {
      return "url must be an absolute http(s) URL, e.g. https://example.com/hooks/agentline"
    }
  }),
  // Property tests draw URLs directly: random strings would almost never pass the filter.
  Schema.annotations({ arbitrary: () => (fc) => fc.tuple(fc.domain(), fc.webPath()).map(([host, path]) => `https://${host}${path}`) })
)

const EventTypes = Schema.Array(WebhookEventType).pipe(
  Schema.minItems(1, { message: () => "event_types must name at least one event type" })
)

export const WebhookEndpoint = Schema.Struct({
  id: WebhookEndpointId,
  url: Schema.String,
  description: Schema.NullOr(Schema.String),
  event_types: Schema.Array(WebhookEventType),
  enabled: Schema.Boolean,
  /** Why the server disabled the endpoint (it failed for too long); null when enabled or disabled by a user. */
  disabled_reason: Schema.NullOr(Schema.String),
  /** Since when every delivery has failed; null when the last one succeeded. */
  failing_since: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotations({ identifier: "WebhookEndpoint" })
export type WebhookEndpoint = typeof WebhookEndpoint.Type

/** An endpoint with its signing secret: only in the answers to creation and rotation. */
export const WebhookEndpointWithSecret = Schema.Struct({
  ...WebhookEndpoint.fields,
  /** `whsec_` + base64: give it to your receiver's Standard Webhooks verifier. Not shown again. */
  secret: Schema.String
}).annotations({ identifier: "WebhookEndpointWithSecret" })

export const CreateWebhookEndpointRequest = Schema.Struct({
  url: Url,
  description: Schema.optionalWith(Schema.NullOr(Schema.String.pipe(Schema.maxLength(500))), { default: () => null }),
  event_types: EventTypes,
  enabled: Schema.optionalWith(Schema.Boolean, { default: () => true })
})
export type CreateWebhookEndpointRequest = typeof CreateWebhookEndpointRequest.Type

/** Fields left out stay as they are. Enabling an endpoint the server disabled clears its reason. */
export const UpdateWebhookEndpointRequest = Schema.Struct({
  url: Schema.optional(Url),
  description: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(500)))),
  event_types: Schema.optional(EventTypes),
  enabled: Schema.optional(Schema.Boolean)
})
export type UpdateWebhookEndpointRequest = typeof UpdateWebhookEndpointRequest.Type

export const WebhookAttempt = Schema.Struct({
  at: Schema.String,
  /** The receiver's HTTP status; null when no answer came (refused connection, timeout). */
  status_code: Schema.NullOr(Schema.Int),
  latency_ms: Schema.Int,
  error: Schema.NullOr(Schema.String)
})
export type WebhookAttempt = typeof WebhookAttempt.Type

/**
 * One event for one endpoint. `pending`: to be sent (again) at `next_attempt_at`; `delivered`: a 2xx
 * came back; `failed`: every retry failed (about 27 hours of them), or the endpoint was deleted.
 */
export const WebhookDelivery = Schema.Struct({
  id: WebhookDeliveryId,
  /** The `webhook-id` header: the same on every attempt and re-send, for the receiver's deduplication. */
  message_id: Schema.String,
  event_type: WebhookEventType,
  status: Schema.Literal("pending", "delivered", "failed"),
  attempt_count: Schema.Int,
  next_attempt_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  delivered_at: Schema.NullOr(Schema.String),
  payload: Schema.Unknown,
  attempts: Schema.Array(WebhookAttempt)
}).annotations({ identifier: "WebhookDelivery" })
export type WebhookDelivery = typeof WebhookDelivery.Type

export const WebhookDeliveriesPage = Schema.Struct({
  deliveries: Schema.Array(WebhookDelivery),
  total_count: Schema.Int,
  page: Schema.Int,
  limit: Schema.Int,
  total_pages: Schema.Int
})
