/**
 * Delivers the webhook outbox. Every process runs this loop; a delivery is claimed (a row lock with a
 * deadline) before its attempt, so two processes never send it at once and one that died mid-attempt
 * leaves it to the others once the claim expires (at-least-once: receivers deduplicate on `webhook-id`).
 *
 * The database work is batched, not per delivery: one look at the outbox claims every due delivery
 * that fits in the free slots in one statement (`ClaimPlan`), and the attempts' outcomes are group
 * committed (`GroupCommit`: the answers that arrive in one turn of the event loop, or while a transaction
 * commits, are written together, one statement for the batch). An attempt's slot is freed when the
 * receiver answers, so the next requests go out while its outcome commits; its ordering key stays taken
 * until the outcome has committed, so a run's next event is never sent before its previous one is settled.
 *
 * Attempts run in their own fibers, at most `maxInFlight` in all and `maxInFlightPerEndpoint` per
 * endpoint, each bounded by `timeoutMillis`: a slow or failing receiver holds its own few slots and
 * never the calls, the outbox's writers, or the other endpoints. Failed attempts are retried on the
 * Standard Webhooks schedule; an endpoint failing for `disableAfterMillis` is disabled, with a log line.
 */
import type { WebhookAttempt } from "@agentline/api/webhooks/Webhooks"
import { Clock, Effect, FiberSet, Metric, Option, Queue, Schedule } from "effect"
import { Webhook } from "standardwebhooks"
import { CallTraces } from "../CallTraces.js"
import { resolveHeaders } from "../credentials/Credentials.js"
import { CredentialsRepo } from "../credentials/CredentialsRepo.js"
import { SecretBox } from "../crypto/SecretBox.js"
import * as GroupCommit from "../GroupCommit.js"
import { PostCall } from "../runs/PostCall.js"
import { RunsRepo } from "../runs/RunsRepo.js"
import { SpanNames, webhookDeliveryFailures, webhookDeliveryLag } from "../Telemetry.js"
import { iso } from "../Time.js"
import { isDelivered, nextAttemptAt, shouldDisable } from "../webhooks/WebhookEvents.js"
import { WebhookSettings } from "../webhooks/WebhookSettings.js"
import { type AttemptOutcome, type ClaimedDelivery, type RecordedAttempt, WebhooksRepo } from "../webhooks/WebhooksRepo.js"
import { orderingKeyOf, planClaims, slotOf } from "./ClaimPlan.js"
import { WebhookTransport } from "./WebhookTransport.js"

/** The run a `run.*` event is about (its envelope's `data.run_id`); event deliveries have no `run_id` of their own. */
const runOfEvent = (payload: unknown): number | null => {
  const data = typeof payload === "object" && payload !== null && "data" in payload ? payload.data : undefined
  const runId = typeof data === "object" && data !== null && "run_id" in data ? data.run_id : undefined
  return typeof runId === "number" ? runId : null
}

const withoutNulls = (record: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null))

/** How long after a run's last write its post-call work stops waiting for a media session's end. */
const POST_CALL_GIVE_UP_MILLIS = 10 * 60_000

export class WebhookDelivery extends Effect.Service<WebhookDelivery>()("@agentline/core/WebhookDelivery", {
  scoped: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const transport = yield* WebhookTransport
    const settings = yield* WebhookSettings
    const box = yield* SecretBox
    const runs = yield* RunsRepo
    const credentials = yield* CredentialsRepo
    const postCall = yield* PostCall
    const traces = yield* Effect.serviceOption(CallTraces)
    const inFlight = new Map<string, number>()
    /** The ordering keys with an attempt in flight here (`ClaimPlan`). */
    const keysInFlight = new Set<string>()
    let total = 0
    /** Slots freed since the loop last looked for due deliveries. */
    let freedSinceLook = 0
    const fibers = yield* FiberSet.make()
    /** Finished attempts free slots: the loop looks for more at once instead of at its next poll. */
    const wake = yield* Queue.sliding<void>(1)
    // Outcomes are group committed: one transaction and one statement for the answers that arrive together
    // (the writer waits for the event loop's turn, in which the other answers of a batch of attempts come).
    const outcomes = yield* GroupCommit.make(
      (items: ReadonlyArray<RecordedAttempt>) => Effect.as(repo.recordAttempts(items), items.map(() => undefined)),
      { gather: GroupCommit.nextTurn }
    )
    const recordAttempt = (item: RecordedAttempt) => outcomes.write(item)
    /** Signers by sealed secret: an endpoint's secret is unsealed once, not per event (a rotation seals a new one). */
    const signers = new Map<string, Webhook>()
    const signerOf = (sealed: string) => {
      let signer = signers.get(sealed)
      if (signer === undefined) {
        if (signers.size >= 1000) signers.clear()
        signer = new Webhook(box.decrypt(sealed))
        signers.set(sealed, signer)
      }
      return signer
    }

    /** The request of a delivery: an event signed per Standard Webhooks, or a workflow node's own request. */
    const requestOf = (delivery: ClaimedDelivery, startedAt: number) => {
      const body = delivery.payload === null ? null : JSON.stringify(delivery.payload)
      const identity = {
        "user-agent": "Agentline-Webhooks/1",
        "webhook-id": delivery.message_id,
        "webhook-timestamp": String(Math.floor(startedAt / 1000))
      }
      if (delivery.target !== null) {
        return {
          method: delivery.target.method,
          url: delivery.target.url,
          headers: { ...(body !== null ? { "content-type": "application/json" } : {}), ...identity, ...delivery.target.headers },
          body
        }
      }
      const signer = signerOf(delivery.sealed_secret ?? "")
      return {
        method: "POST" as const,
        url: delivery.url,
        headers: {
          "content-type": "application/json",
          ...identity,
          "webhook-signature": signer.sign(delivery.message_id, new Date(startedAt), body ?? "")
        },
        body
      }
    }

    /** A workflow node's request is reported in its run's logs, one key per node (its latest state). */
    const reportToRun = (delivery: ClaimedDelivery, attempt: WebhookAttempt, outcome: AttemptOutcome, at: number) =>
      delivery.target === null || delivery.run_id === null ? Effect.void : runs.update(delivery.run_id, {
        merge: {
          logs: {
            // Nulls are left out: a JSON merge patch (SQLite's json_patch) reads null as "delete".
            [`webhook_node:${delivery.target.node_id}`]: withoutNulls({
              node_name: delivery.target.node_name,
              method: delivery.target.method,
              url: delivery.target.url,
              status: outcome.status,
              attempt_count: delivery.attempt_count + 1,
              last_attempt: withoutNulls(attempt),
              next_attempt_at: outcome.status === "pending" ? outcome.next_attempt_at : null
            })
          }
        }
      }, iso(at)).pipe(Effect.asVoid)

    /**
     * The headers of the node's stored credential, resolved now (a changed credential applies at once;
     * its secret is never written to the outbox). `None`: it was deleted, the request cannot be sent.
     */
    const credentialOf = (delivery: ClaimedDelivery) =>
      delivery.target?.credential_uuid == null
        ? Effect.succeed(Option.some<Record<string, string>>({}))
        : resolveHeaders(credentials, box, delivery.organization_id, delivery.target.credential_uuid)

    /**
     * One attempt of one claimed delivery, and what follows from its answer. `answered` frees its slot
     * once the receiver has answered (or it is not sent): the next requests go out while its outcome
     * commits. Its ordering key stays taken until then.
     */
    const attempt = Effect.fnUntraced(function*(delivery: ClaimedDelivery, answered: Effect.Effect<void>) {
      const startedAt = yield* Clock.currentTimeMillis
      const credential = yield* credentialOf(delivery)
      if (Option.isNone(credential)) {
        // Nothing to retry: the request would go out without the authorization it was meant to carry.
        const record = {
          at: iso(startedAt),
          status_code: null,
          latency_ms: 0,
          error: `the credential ${delivery.target?.credential_uuid} no longer exists or its data no longer fits its type: not sent`
        }
        yield* answered
        yield* recordAttempt({ id: delivery.id, attempt: record, outcome: { status: "failed" } })
        return yield* reportToRun(delivery, record, { status: "failed" }, startedAt)
      }
      const request = requestOf(delivery, startedAt)
      const answer = yield* transport.send({
        ...request,
        headers: { ...request.headers, ...credential.value },
        timeoutMillis: settings.timeoutMillis,
        allowPrivate: settings.allowPrivate
      })
      yield* answered
      const at = yield* Clock.currentTimeMillis
      const record = { at: iso(startedAt), status_code: answer.status, latency_ms: Math.round(answer.latencyMillis), error: answer.error }
      if (isDelivered(answer.status)) {
        const outcome = { status: "delivered" as const, at: iso(at) }
        yield* recordAttempt({ id: delivery.id, attempt: record, outcome })
        yield* reportToRun(delivery, record, outcome, at)
        if (delivery.endpoint_id !== null && delivery.endpoint_failing) yield* repo.markHealthy(delivery.endpoint_id)
        yield* Metric.update(webhookDeliveryLag, Math.max(0, at - Date.parse(delivery.created_at)) / 1000)
        return
      }
      const next = nextAttemptAt(settings.retryDelaysMillis, delivery.attempt_count + 1, at)
      const outcome: AttemptOutcome = next === undefined ? { status: "failed" } : { status: "pending", next_attempt_at: iso(next) }
      yield* Metric.increment(Metric.tagged(webhookDeliveryFailures, "will_retry", String(next !== undefined)))
      yield* recordAttempt({ id: delivery.id, attempt: record, outcome })
      yield* reportToRun(delivery, record, outcome, at)
      if (next === undefined) {
        yield* Effect.logWarning("webhook delivery failed for good: every retry failed").pipe(
          Effect.annotateLogs({
            endpoint_id: delivery.endpoint_id,
            run_id: delivery.run_id,
            message_id: delivery.message_id,
            event_type: delivery.event_type
          })
        )
      }
      if (delivery.endpoint_id === null) return
      const failingSince = yield* repo.markFailing(delivery.endpoint_id, iso(at))
      if (shouldDisable(failingSince, at, settings.disableAfterMillis)) {
        const reason = `disabled by the server: every delivery has failed since ${failingSince} (last: ${
          answer.error ?? `HTTP ${answer.status}`
        })`
        yield* repo.updateEndpoint(delivery.organization_id, delivery.endpoint_id, { enabled: false, disabled_reason: reason }, iso(at))
        yield* Effect.logWarning("webhook endpoint disabled: it has failed for too long").pipe(
          Effect.annotateLogs({ endpoint_id: delivery.endpoint_id, organization_id: delivery.organization_id, failing_since: failingSince })
        )
      }
    })

    /**
     * An attempt's span: in its call's trace while this process remembers the call (the run's events and
     * webhook nodes), else a trace of its own. The poll around it is not traced (an idle query a second).
     */
    const traced = (delivery: ClaimedDelivery) => <A, E, R>(self: Effect.Effect<A, E, R>) => {
      const runId = delivery.run_id ?? runOfEvent(delivery.payload)
      return Effect.withSpan(self, SpanNames.webhook, {
        root: true,
        ...Option.match(Option.flatMap(traces, (t) => t.ofRun(runId)), { onNone: () => ({}), onSome: (parent) => ({ parent }) }),
        attributes: {
          "agentline.delivery_id": delivery.id,
          "agentline.event_type": delivery.event_type,
          "agentline.attempt_count": delivery.attempt_count + 1,
          ...(runId !== null ? { "agentline.run_id": runId } : {}),
          ...(delivery.endpoint_id !== null ? { "agentline.endpoint_id": delivery.endpoint_id } : {})
        }
      }).pipe(
        Effect.annotateLogs({ organization_id: delivery.organization_id, ...(runId !== null ? { run_id: runId } : {}) }),
        Effect.withTracerEnabled(true)
      )
    }

    /**
     * Frees an attempt's slot (its request is over). The loop is woken once half of the endpoint's slots
     * are free, or a quarter of all slots have been freed since its last look: a look for due deliveries
     * then claims and starts several at once, rather than one per answer (a look and a claim per event
     * was most of the cost).
     */
    const freeSlot = (slot: string) =>
      Effect.suspend(() => {
        total--
        const left = (inFlight.get(slot) ?? 1) - 1
        if (left === 0) inFlight.delete(slot)
        else inFlight.set(slot, left)
        freedSinceLook++
        const worthALook = left <= settings.maxInFlightPerEndpoint / 2 || freedSinceLook >= settings.maxInFlight / 4
        return worthALook ? Queue.offer(wake, undefined) : Effect.void
      })

    /**
     * The attempt's outcome has committed: its ordering key is free, and the key's next delivery is due
     * now. The loop is woken for it when half of the endpoint's slots are free (else a freed slot wakes
     * it soon: a look per commit would claim a few deliveries at a time).
     */
    const settle = (slot: string, key: string) =>
      Effect.suspend(() => {
        keysInFlight.delete(key)
        const room = (inFlight.get(slot) ?? 0) <= settings.maxInFlightPerEndpoint / 2 && total < settings.maxInFlight
        return room ? Queue.offer(wake, undefined) : Effect.void
      })

    /** Claims what is due and fits in the free slots (one statement), and starts its attempts. */
    const tick = Effect.gen(function*() {
      freedSinceLook = 0
      if (total >= settings.maxInFlight) return
      const now = yield* Clock.currentTimeMillis
      // Twice the free slots: some of what is due may wait for its endpoint's slots.
      const due = yield* repo.due(iso(now), (settings.maxInFlight - total) * 2)
      const chosen = planClaims(
        due.map((delivery) => ({ id: delivery.id, slot: slotOf(delivery), key: orderingKeyOf(delivery) })),
        { total, perSlot: inFlight, keys: keysInFlight },
        { maxInFlight: settings.maxInFlight, maxInFlightPerSlot: settings.maxInFlightPerEndpoint }
      )
      if (chosen.length === 0) return
      // The claim outlives the attempt's timeout: it only guards against another process meanwhile.
      const lockedUntil = iso(now + settings.timeoutMillis + 30_000)
      const claimed = yield* repo.claim(chosen.map((c) => c.id), iso(now), lockedUntil)
      const planOf = new Map(chosen.map((c) => [c.id, c]))
      for (const delivery of claimed) {
        const { key, slot } = planOf.get(delivery.id)!
        total++
        inFlight.set(slot, (inFlight.get(slot) ?? 0) + 1)
        keysInFlight.add(key)
        let holdsSlot = true
        const answered = Effect.suspend(() => {
          if (!holdsSlot) return Effect.void
          holdsSlot = false
          return freeSlot(slot)
        })
        yield* FiberSet.run(
          fibers,
          attempt(delivery, answered).pipe(
            traced(delivery),
            Effect.catchAllCause((cause) =>
              Effect.logError("webhook attempt crashed; the delivery is tried again when its claim expires", cause)
            ),
            Effect.ensuring(Effect.zipRight(answered, settle(slot, key)))
          )
        )
      }
    })

    /**
     * Runs whose call ended long ago but whose media session never said it ended (a crashed process):
     * their post-call work is done without waiting any longer.
     */
    const sweep = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      for (const runId of yield* runs.awaitingPostCall(iso(now - POST_CALL_GIVE_UP_MILLIS), 100)) {
        yield* postCall.complete(runId, { force: true })
      }
    })

    yield* sweep.pipe(
      Effect.catchAllCause((cause) => Effect.logError("post-call sweep failed; trying again", cause)),
      Effect.withTracerEnabled(false),
      Effect.repeat(Schedule.spaced(`${settings.sweepMillis} millis`)),
      Effect.forkScoped
    )

    // Polls for new deliveries every `pollMillis`, and again whenever an attempt ends (a backlog drains
    // as fast as the receiver answers, within the in-flight limits).
    const nextTurn = Effect.race(Effect.sleep(`${settings.pollMillis} millis`), Effect.zipRight(Queue.take(wake), Queue.takeAll(wake)))
    yield* tick.pipe(
      Effect.catchAllCause((cause) => Effect.logError("webhook outbox poll failed; trying again", cause)),
      Effect.withTracerEnabled(false),
      Effect.zipRight(nextTurn),
      Effect.forever,
      Effect.forkScoped
    )
    return {} as const
  })
}) {}
