/**
 * Delivers the webhook outbox. Every process runs this loop; a delivery is claimed (a row lock with a
 * deadline) before its attempt, so two processes never send it at once and one that died mid-attempt
 * leaves it to the others once the claim expires (at-least-once: receivers deduplicate on `webhook-id`).
 *
 * Attempts run in their own fibers, at most `maxInFlight` in all and `maxInFlightPerEndpoint` per
 * endpoint, each bounded by `timeoutMillis`: a slow or failing receiver holds its own few slots and
 * never the calls, the outbox's writers, or the other endpoints. Failed attempts are retried on the
 * Standard Webhooks schedule; an endpoint failing for `disableAfterMillis` is disabled, with a log line.
 */
import { Clock, Effect, FiberSet, Schedule } from "effect"
import { Webhook } from "standardwebhooks"
import { SecretBox } from "../telephony/Secrets.js"
import { iso } from "../Time.js"
import { isDelivered, nextAttemptAt, shouldDisable } from "./WebhookEvents.js"
import { WebhookSettings } from "./WebhookSettings.js"
import { WebhookTransport } from "./WebhookTransport.js"
import { type ClaimedDelivery, WebhooksRepo } from "./WebhooksRepo.js"

export class WebhookDelivery extends Effect.Service<WebhookDelivery>()("@agentline/core/WebhookDelivery", {
  scoped: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const transport = yield* WebhookTransport
    const settings = yield* WebhookSettings
    const box = yield* SecretBox
    const inFlight = new Map<number, number>()
    let total = 0
    const fibers = yield* FiberSet.make()

    /** One attempt of one claimed delivery, and what follows from its answer. */
    const attempt = Effect.fn("WebhookDelivery.attempt")(function*(delivery: ClaimedDelivery) {
      const startedAt = yield* Clock.currentTimeMillis
      const body = JSON.stringify(delivery.payload)
      const signer = new Webhook(box.decrypt(delivery.sealed_secret))
      const timestamp = new Date(startedAt)
      const answer = yield* transport.send({
        url: delivery.url,
        headers: {
          "content-type": "application/json",
          "user-agent": "Agentline-Webhooks/1",
          "webhook-id": delivery.message_id,
          "webhook-timestamp": String(Math.floor(startedAt / 1000)),
          "webhook-signature": signer.sign(delivery.message_id, timestamp, body)
        },
        body,
        timeoutMillis: settings.timeoutMillis,
        allowPrivate: settings.allowPrivate
      })
      const at = yield* Clock.currentTimeMillis
      const record = { at: iso(startedAt), status_code: answer.status, latency_ms: Math.round(answer.latencyMillis), error: answer.error }
      if (isDelivered(answer.status)) {
        yield* repo.recordAttempt(delivery.id, record, { status: "delivered", at: iso(at) })
        yield* repo.markHealthy(delivery.endpoint_id)
        return
      }
      const next = nextAttemptAt(settings.retryDelaysMillis, delivery.attempt_count + 1, at)
      yield* repo.recordAttempt(delivery.id, record, next === undefined ? { status: "failed" } : { status: "pending", next_attempt_at: iso(next) })
      if (next === undefined) {
        yield* Effect.logWarning("webhook delivery failed for good: every retry failed").pipe(
          Effect.annotateLogs({ endpoint_id: delivery.endpoint_id, message_id: delivery.message_id, event_type: delivery.event_type })
        )
      }
      const failingSince = yield* repo.markFailing(delivery.endpoint_id, iso(at))
      if (shouldDisable(failingSince, at, settings.disableAfterMillis)) {
        const reason = `disabled by the server: every delivery has failed since ${failingSince} (last: ${answer.error ?? `HTTP ${answer.status}`})`
        yield* repo.updateEndpoint(delivery.organization_id, delivery.endpoint_id, { enabled: false, disabled_reason: reason }, iso(at))
        yield* Effect.logWarning("webhook endpoint disabled: it has failed for too long").pipe(
          Effect.annotateLogs({ endpoint_id: delivery.endpoint_id, organization_id: delivery.organization_id, failing_since: failingSince })
        )
      }
    })

    const release = (endpointId: number) =>
      Effect.sync(() => {
        total--
        const left = (inFlight.get(endpointId) ?? 1) - 1
        if (left === 0) inFlight.delete(endpointId)
        else inFlight.set(endpointId, left)
      })

    /** Claims what is due and fits in the free slots, and starts its attempts. */
    const tick = Effect.gen(function*() {
      if (total >= settings.maxInFlight) return
      const now = yield* Clock.currentTimeMillis
      const due = yield* repo.due(iso(now), settings.maxInFlight * 2)
      // The claim outlives the attempt's timeout: it only guards against another process meanwhile.
      const lockedUntil = iso(now + settings.timeoutMillis + 30_000)
      for (const delivery of due) {
        if (total >= settings.maxInFlight) break
        if ((inFlight.get(delivery.endpoint_id) ?? 0) >= settings.maxInFlightPerEndpoint) continue
        if (!(yield* repo.claim(delivery.id, iso(now), lockedUntil))) continue
        total++
        inFlight.set(delivery.endpoint_id, (inFlight.get(delivery.endpoint_id) ?? 0) + 1)
        yield* FiberSet.run(
          fibers,
          attempt(delivery).pipe(
            Effect.catchAllCause((cause) => Effect.logError("webhook attempt crashed; the delivery is tried again when its claim expires", cause)),
            Effect.ensuring(release(delivery.endpoint_id))
          )
        )
      }
    })

    yield* tick.pipe(
      Effect.catchAllCause((cause) => Effect.logError("webhook outbox poll failed; trying again", cause)),
      Effect.repeat(Schedule.spaced(`${settings.pollMillis} millis`)),
      Effect.forkScoped
    )
    return {} as const
  })
}) {}
