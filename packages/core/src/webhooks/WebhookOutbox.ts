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

export interface OutboxEventInput {
  readonly organizationId: OrganizationId
  readonly type: WebhookEventType
  readonly orderingKey: string
  readonly at: string
  readonly data: Record<string, unknown>
}

export class WebhookOutbox extends Effect.Service<WebhookOutbox>()("@agentline/core/WebhookOutbox", {
  effect: Effect.gen(function*() {
    const repo = yield* WebhooksRepo

    /**
     * Queues each event for the organization's subscribed endpoints; `orderingKey` (`run:12`) keeps an
     * endpoint's deliveries of one subject in order. `at` is the change's time (ISO). Several events
     * (a batch of runs started together) are written together.
     */
    const emitAll = Effect.fn("WebhookOutbox.emitAll")(function*(events: ReadonlyArray<OutboxEventInput>) {
      return yield* repo.enqueue(events.map((input) => ({
        organization_id: input.organizationId,
        message_id: `msg_${Crypto.randomUUID().replaceAll("-", "")}`,
        event_type: input.type,
        ordering_key: input.orderingKey,
        payload: envelope(input.type, input.at, input.data),
        now: input.at
      })))
    })

    const emit = (input: OutboxEventInput) => emitAll([input])

    return { emit, emitAll } as const
  })
}) {}
