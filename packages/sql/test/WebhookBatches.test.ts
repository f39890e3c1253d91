/**
 * The webhook outbox's batch statements on both databases (issue 23): the light due query (first in
 * line only), one statement claiming many deliveries (a second claim takes none of them until their
 * lease ends: a process that died mid-attempt leaves them to the others), and one statement recording
 * many outcomes, each row its own (delivered, retried later, failed), its attempt appended to its log.
 */
import { OrganizationId, WebhookDeliveryId } from "@agentline/api/Ids"
import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import { type RecordedAttempt, WebhooksRepo } from "@agentline/core/webhooks/WebhooksRepo"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Repositories, Testing } from "../src/index.js"

const t0 = "2026-03-01T10:00:00.000Z"
const t1 = "2026-03-01T10:00:01.000Z"
const lease = "2026-03-01T10:00:40.000Z"
const afterLease = "2026-03-01T10:00:41.000Z"
const retryAt = "2026-03-01T10:05:00.000Z"

for (const dialect of Testing.dialects) {
  layer(Repositories.layer.pipe(Layer.provideMerge(Testing.layerDatabase(dialect))), { timeout: "60 seconds", excludeTestServices: true })(
    `webhook outbox batches [${dialect}]`,
    (it) => {
      it.effect("due answers each key's first in line; one claim takes many, once per lease; one statement records many outcomes", () =>
        Effect.gen(function*() {
          const organization = yield* (yield* OrganizationsRepo).findOrCreate(`org-${Math.random().toString(36).slice(2)}`, t0)
          const organizationId = OrganizationId.make(organization.id)
          const repo = yield* WebhooksRepo
          const endpoint = yield* repo.insertEndpoint({
            organization_id: organizationId,
            url: "https://crm.example/hooks",
            description: null,
            event_types: ["run.started"],
            enabled: true,
            sealed_secret: "sealed",
            now: t0
          })
          // Three runs, two events each, written in event order; and a workflow node's request.
          for (const seq of [0, 1]) {
            yield* repo.enqueue([0, 1, 2].map((run) => ({
              organization_id: organizationId,
              message_id: `msg_${run}_${seq}`,
              event_type: "run.started" as const,
              ordering_key: `run:${run}`,
              payload: { data: { run_id: run, seq } },
              now: t0
            })))
          }
          yield* repo.enqueueDirect({
            organization_id: organizationId,
            run_id: 9,
            message_id: "msg_node",
            ordering_key: "run:9",
            target: {
              method: "POST",
              url: "https://other.example/calls",
              headers: {},
              credential_uuid: null,
              node_id: "n1",
              node_name: "CRM"
            },
            payload: { a: 1 },
            now: t0
          })

          const due = yield* repo.due(t1, 100)
          expect(due.map((d) => [d.endpoint_id, d.ordering_key, d.url])).toEqual([
            [endpoint.id, "run:0", "https://crm.example/hooks"],
            [endpoint.id, "run:1", "https://crm.example/hooks"],
            [endpoint.id, "run:2", "https://crm.example/hooks"],
            [null, "run:9", "https://other.example/calls"]
          ])

          // One claim, in the order asked; a second one (another process) takes none of them.
          const ids = [due[2]!.id, due[0]!.id, due[1]!.id, due[3]!.id]
          const claimed = yield* repo.claim(ids, t1, lease)
          expect(claimed.map((c) => c.id)).toEqual(ids)
          expect(claimed.map((c) => c.message_id)).toEqual(["msg_2_0", "msg_0_0", "msg_1_0", "msg_node"])
          expect(claimed[0]).toMatchObject({
            endpoint_id: endpoint.id,
            url: "https://crm.example/hooks",
            sealed_secret: "sealed",
            payload: { data: { run_id: 2, seq: 0 } },
            attempt_count: 0,
            target: null,
            endpoint_failing: false
          })
          expect(claimed[3]).toMatchObject({
            endpoint_id: null,
            run_id: 9,
            url: "https://other.example/calls",
            sealed_secret: null,
            target: { node_id: "n1" }
          })
          expect(yield* repo.claim(ids, t1, lease)).toEqual([])
          // Claimed: not due, and neither are the runs' next events (their first is not settled).
          expect(yield* repo.due(t1, 100)).toEqual([])

          // Settled in one statement: run 0 delivered, run 1 to be retried, run 2 failed for good.
          const attempt = (status_code: number | null) => ({
            at: t1,
            status_code,
            latency_ms: 3,
            error: status_code === null ? "refused" : null
          })
          const outcomes: ReadonlyArray<RecordedAttempt> = [
            { id: due[0]!.id, attempt: attempt(204), outcome: { status: "delivered", at: t1 } },
            { id: due[1]!.id, attempt: attempt(500), outcome: { status: "pending", next_attempt_at: retryAt } },
            { id: due[2]!.id, attempt: attempt(null), outcome: { status: "failed" } }
          ]
          yield* repo.recordAttempts(outcomes)
          // Run 0's and run 2's next events are first in line now; run 1's waits behind its retry.
          expect((yield* repo.due(t1, 100)).map((d) => d.ordering_key)).toEqual(["run:0", "run:2"])
          const log = yield* repo.deliveries(organizationId, endpoint.id, { offset: 0, limit: 100 })
          const byMessage = new Map(log.deliveries.map((d) => [d.message_id, d]))
          expect(byMessage.get("msg_0_0")).toMatchObject({ status: "delivered", attempt_count: 1, delivered_at: t1, next_attempt_at: null })
          expect(byMessage.get("msg_0_0")!.attempts).toEqual([attempt(204)])
          expect(byMessage.get("msg_1_0")).toMatchObject({
            status: "pending",
            attempt_count: 1,
            delivered_at: null,
            next_attempt_at: retryAt
          })
          expect(byMessage.get("msg_2_0")).toMatchObject({ status: "failed", attempt_count: 1, delivered_at: null, next_attempt_at: null })
          expect(byMessage.get("msg_2_0")!.attempts).toEqual([attempt(null)])

          // Run 1's retry: due at its time (so is the node's request, whose lease has ended: below), its
          // second attempt appended to the first.
          expect((yield* repo.due(retryAt, 100)).map((d) => d.ordering_key)).toEqual(["run:0", "run:2", "run:9", "run:1"])
          yield* repo.claim([due[1]!.id], retryAt, "2026-03-01T10:06:00.000Z")
          yield* repo.recordAttempts([{
            id: due[1]!.id,
            attempt: { ...attempt(200), at: retryAt },
            outcome: { status: "delivered", at: retryAt }
          }])
          const retried = (yield* repo.deliveries(organizationId, endpoint.id, { offset: 0, limit: 100 })).deliveries.find((d) =>
            d.message_id === "msg_1_0"
          )
          expect(retried).toMatchObject({ status: "delivered", attempt_count: 2, delivered_at: retryAt })
          expect(retried!.attempts.map((a) => a.status_code)).toEqual([500, 200])

          // The node's request was claimed and never settled (its process died): taken again once its lease ends.
          expect(yield* repo.claim([due[3]!.id], t1, lease)).toEqual([])
          expect((yield* repo.claim([due[3]!.id], afterLease, "2026-03-01T10:01:30.000Z")).map((c) => c.id)).toEqual([due[3]!.id])
          // A disabled endpoint's deliveries are not due; a node's request has no endpoint to disable.
          yield* repo.updateEndpoint(organizationId, endpoint.id, { enabled: false }, t1)
          expect((yield* repo.due(retryAt, 100)).map((d) => d.ordering_key)).toEqual(["run:9"])
          // Nothing to claim or record: no statement, no error.
          expect(yield* repo.claim([], t1, lease)).toEqual([])
          yield* repo.recordAttempts([])
          expect(yield* repo.claim([WebhookDeliveryId.make(999_999)], t1, lease)).toEqual([])
        }))

      it.effect("two workers claiming the same deliveries at once: each delivery goes to exactly one of them", () =>
        Effect.gen(function*() {
          const organization = yield* (yield* OrganizationsRepo).findOrCreate(`org-${Math.random().toString(36).slice(2)}`, t0)
          const organizationId = OrganizationId.make(organization.id)
          const repo = yield* WebhooksRepo
          yield* repo.insertEndpoint({
            organization_id: organizationId,
            url: "https://crm.example/hooks",
            description: null,
            event_types: ["run.started"],
            enabled: true,
            sealed_secret: "sealed",
            now: t0
          })
          yield* repo.enqueue(Array.from({ length: 40 }, (_, run) => ({
            organization_id: organizationId,
            message_id: `msg_${run}`,
            event_type: "run.started" as const,
            ordering_key: `workers:${run}`,
            payload: { data: { run_id: run } },
            now: t0
          })))
          // (The database is the file's: the test above left deliveries of its own.)
          const ids = (yield* repo.due(t1, 100)).filter((d) => d.ordering_key.startsWith("workers:")).map((d) => d.id)
          expect(ids.length).toBe(40)
          // Overlapping batches, in opposite orders, at the same time (on PostgreSQL, on two connections).
          const [a, b, c] = yield* Effect.all([
            repo.claim(ids.slice(0, 30), t1, lease),
            repo.claim([...ids.slice(10)].reverse(), t1, lease),
            repo.claim(ids.filter((_, i) => i % 2 === 0), t1, lease)
          ], { concurrency: "unbounded" })
          const taken = [...a!, ...b!, ...c!].map((d) => d.id)
          expect(taken.length).toBe(40)
          expect(new Set(taken)).toEqual(new Set(ids))
        }))
    }
  )
}
