/** What can go wrong with webhook endpoints. */
import { Schema } from "effect"

export class WebhookEndpointNotFound extends Schema.TaggedError<WebhookEndpointNotFound>()("WebhookEndpointNotFound", {
  endpointId: Schema.Number
}) {
  override get message() {
    return `Webhook endpoint ${this.endpointId} not found in this organization`
  }
}

export class WebhookDeliveryNotFound extends Schema.TaggedError<WebhookDeliveryNotFound>()("WebhookDeliveryNotFound", {
  deliveryId: Schema.Number
}) {
  override get message() {
    return `Webhook delivery ${this.deliveryId} not found for this endpoint`
  }
}

/** A target this server will not send to: a private, loopback or link-local address (SSRF guard). */
export class WebhookTargetRefused extends Schema.TaggedError<WebhookTargetRefused>()("WebhookTargetRefused", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.reason}; webhooks go to public addresses only (the operator can allow private ones with AGENTLINE_WEBHOOK_ALLOW_PRIVATE=true)`
  }
}
