/**
 * Writes events to the webhook outbox. Callers emit inside the transaction of the change the event
 * reports (`Transactor`), so the event is stored if and only if the change is: nothing is lost to a
 * crash, and nothing is reported that did not happen. Delivery is `WebhookDelivery`'s job.
 */
import type { OrganizationId } from "@agentline/api/Ids"
import type { WebhookEventType } from "@agentline/api/webhooks/Webhooks"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import { envelope } from "./WebhookEvents.js"
import { WebhooksRepo } from "./WebhooksRepo.js"

export class WebhookOutbox extends Effect.Service<WebhookOutbox>()("@agentline/core/WebhookOutbox", {
  effect: Effect.gen(function*() {
    const repo = yield* WebhooksRepo

    /**
     * Queues `type` for the organization's subscribed endpoints; `orderingKey` (`run:12`) keeps an
     * endpoint's deliveries of one subject in order. `at` is the change's time (ISO).
     */
    const emit = Effect.fn("WebhookOutbox.emit")(function*(input: {
      readonly organizationId: OrganizationId
      readonly type: WebhookEventType
      readonly orderingKey: string
      readonly at: string
      readonly data: Record<string, unknown>
    }) {
      return yield* repo.enqueue({
        organization_id: input.organizationId,
        message_id: `msg_${Crypto.randomUUID().replaceAll("-", "")}`,
        event_type: input.type,
        ordering_key: input.orderingKey,
        payload: envelope(input.type, input.at, input.data),
        now: input.at
      })
    })

    return { emit } as const
  })
}) {}
