/**
 * The dispatcher's batch statements (`CASE id WHEN … THEN …` over many rows) on both databases: each
 * row gets its own values, with their types (PostgreSQL types a `CASE` from its branches, not from
 * the column), and the guards on state hold per row.
 */
import { AttemptId, CampaignId, ContactId, OrganizationId, RunId, TelephonyConfigurationId, WorkflowId } from "@agentline/api/Ids"
import { DispatchRepo } from "@agentline/core/dispatcher/DispatchRepo"
import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { TelephonyConfigsRepo } from "@agentline/core/telephony/TelephonyConfigsRepo"
import { WebhooksRepo } from "@agentline/core/webhooks/WebhooksRepo"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Either, Layer, Option } from "effect"
import { Repositories, Testing } from "../src/index.js"

const t0 = "2026-03-01T10:00:00.000Z"
const t1 = "2026-03-01T10:00:05.000Z"
const retryAt = Date.parse("2026-03-01T11:00:00.000Z")

for (const dialect of Testing.dialects) {
  layer(Repositories.layer.pipe(Layer.provideMerge(Testing.layerDatabase(dialect))), { timeout: "60 seconds", excludeTestServices: true })(
    `dispatcher batches [${dialect}]`,
    (it) => {
      it.effect("claim, mark dialing, set call ids and finish a batch: each row its own values, counters folded per campaign", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const organization = yield* (yield* OrganizationsRepo).findOrCreate(`org-${Math.random().toString(36).slice(2)}`, t0)
          const organizationId = OrganizationId.make(organization.id)
          const config = Either.getOrThrow(yield* (yield* TelephonyConfigsRepo).insert({
            organization_id: organization.id, name: "Main", provider: "simulator", credentials: {}, account_id: "", is_default_outbound: true, now: t0
          }))
          const [workflow] = yield* sql<{ id: number }>`INSERT INTO workflows (organization_id, workflow_uuid, name, status, created_at, updated_at)
            VALUES (${organization.id}, ${`wf-${Math.random().toString(36).slice(2)}`}, ${"Agent"}, ${"active"}, ${t0}, ${t0}) RETURNING id`
          const workflowId = Number(workflow!.id)
          const [campaign] = yield* sql<{ id: number }>`INSERT INTO campaigns
            (organization_id, workflow_id, name, state, source_type, source_id, total_rows, retry_config, circuit_breaker, logs, created_at, updated_at)
            VALUES (${organization.id}, ${workflowId}, ${"C"}, ${"running"}, ${"csv"}, ${"k"}, ${4}, ${"{}"}, ${"{}"}, ${"[]"}, ${t0}, ${t0}) RETURNING id`
          const campaignId = CampaignId.make(Number(campaign!.id))
          const contactIds: Array<ContactId> = []
          for (let i = 0; i < 4; i++) {
            const [row] = yield* sql<{ id: number }>`INSERT INTO contacts
              (campaign_id, organization_id, row_number, phone_number, initial_context, state, updated_at)
              VALUES (${campaignId}, ${organization.id}, ${i + 1}, ${`+1415555010${i}`}, ${"{}"}, ${"queued"}, ${t0}) RETURNING id`
            contactIds.push(ContactId.make(Number(row!.id)))
          }
          const dispatch = yield* DispatchRepo
          const { claimed } = yield* dispatch.claim({
            campaignId, organizationId, contactIds, campaignLimit: 10, provider: "simulator",
            telephonyConfigurationId: TelephonyConfigurationId.make(config.id), nodeId: "node-a", now: t0, reconcileAt: t0
          })
          expect(claimed.length).toBe(4)

          const runs = yield* (yield* RunsRepo).insertAll(claimed.map((c, i) => ({
            organization_id: organizationId, workflow_id: WorkflowId.make(workflowId), campaign_id: campaignId, definition_id: null,
            name: `run-${i}`, mode: "simulator", call_type: "outbound" as const, initial_context: { i }, gathered_context: null, logs: null, now: t0
          })))
          // In order, and numbered in order.
          expect(runs.map((r) => r.name)).toEqual(["run-0", "run-1", "run-2", "run-3"])
          expect([...runs.map((r) => r.id)].sort((a, b) => a - b)).toEqual(runs.map((r) => r.id))
          const [counted] = yield* sql<{ total_runs: number }>`SELECT total_runs FROM workflows WHERE id = ${workflowId}`
          expect(Number(counted!.total_runs)).toBe(4)

          yield* dispatch.markDialing(claimed.map((c, i) => ({
            attemptId: c.attemptId, runId: RunId.make(runs[i]!.id), from: i === 0 ? null : `+1415555020${i}`, reconcileAt: i === 0 ? t0 : t1
          })))
          yield* dispatch.setProviderCallIds(claimed.slice(0, 2).map((c, i) => ({ attemptId: c.attemptId, providerCallId: `call-${i}` })))
          for (const [i, c] of claimed.entries()) {
            const stored = Option.getOrThrow(yield* dispatch.findAttempt(c.attemptId))
            expect(stored.state).toBe("dialing")
            expect(stored.runId).toBe(runs[i]!.id)
            expect(stored.providerCallId).toBe(i < 2 ? `call-${i}` : null)
          }
          const [first, second] = yield* sql<{ from_number: string | null }>`SELECT from_number FROM call_attempts
            WHERE ${sql.in("id", [claimed[0]!.attemptId, claimed[1]!.attemptId])} ORDER BY id`
          expect([first!.from_number, second!.from_number]).toEqual([null, "+14155550201"])

          const ended = yield* dispatch.finishAttempts([
            { attemptId: claimed[0]!.attemptId, outcome: "completed", durationMillis: 1500, contactNext: { _tag: "Final", state: "done", reached: true }, now: t1 },
            { attemptId: claimed[1]!.attemptId, outcome: "busy", durationMillis: 0, contactNext: { _tag: "Retry", at: retryAt }, now: t1 },
            { attemptId: claimed[2]!.attemptId, outcome: "failed", durationMillis: 0, contactNext: { _tag: "Final", state: "exhausted", reached: false }, now: t1 },
            // The same attempt twice in one batch: the first is its end, the second a late duplicate.
            { attemptId: claimed[2]!.attemptId, outcome: "completed", durationMillis: 9000, contactNext: { _tag: "Final", state: "done", reached: true }, now: t1 },
            // Not an open attempt.
            { attemptId: AttemptId.make(999_999), outcome: "completed", durationMillis: 0, contactNext: undefined, now: t1 }
          ])
          expect(ended).toEqual([true, true, true, false, false])
          const contacts = yield* sql<{ id: number; state: string; next_attempt_at: unknown; last_outcome: string | null }>`
            SELECT id, state, next_attempt_at, last_outcome FROM contacts WHERE campaign_id = ${campaignId} ORDER BY id`
          expect(contacts.map((c) => [c.state, c.last_outcome])).toEqual([["done", "completed"], ["queued", "busy"], ["exhausted", "failed"], ["dialing", null]])
          const nextAt = contacts[1]!.next_attempt_at
          expect(new Date(nextAt instanceof Date ? nextAt : String(nextAt)).getTime()).toBe(retryAt)
          expect(contacts[0]!.next_attempt_at).toBeNull()
          const [counters] = yield* sql<{ processed_rows: number; failed_rows: number; total_queued_count: number }>`
            SELECT processed_rows, failed_rows, total_queued_count FROM campaigns WHERE id = ${campaignId}`
          expect([Number(counters!.processed_rows), Number(counters!.failed_rows), Number(counters!.total_queued_count)]).toEqual([2, 1, 1])
          const [third] = yield* sql<{ outcome: string; duration_ms: number }>`SELECT outcome, duration_ms FROM call_attempts WHERE id = ${claimed[2]!.attemptId}`
          expect([third!.outcome, Number(third!.duration_ms)]).toEqual(["failed", 0])
          // Again: nothing changes.
          expect(yield* dispatch.finishAttempts([
            { attemptId: claimed[0]!.attemptId, outcome: "failed", durationMillis: 0, contactNext: { _tag: "Final", state: "exhausted", reached: false }, now: t1 }
          ])).toEqual([false])

          // The runs: each its own merge, defaults and status callbacks; only existing ones reported.
          const repo = yield* RunsRepo
          const completed = yield* repo.completeAll([
            { id: runs[0]!.id, merge: { gathered_context: { outcome: "completed" }, usage_info: { call_duration_seconds: 1.5 } }, defaults: { gathered_context: { call_disposition: "completed" } }, statusCallbacks: [{ status: "ended" }] },
            { id: runs[1]!.id, merge: { gathered_context: { outcome: "busy" } }, statusCallbacks: [] },
            { id: 999_999, merge: { gathered_context: { outcome: "x" } } }
          ], t1)
          expect([...completed].sort((a, b) => a - b)).toEqual([runs[0]!.id, runs[1]!.id])
          const one = Option.getOrThrow(yield* repo.findById(runs[0]!.id))
          expect(one.is_completed).toBe(true)
          expect(one.gathered_context).toEqual({ outcome: "completed", call_disposition: "completed" })
          expect(one.usage_info).toEqual({ call_duration_seconds: 1.5 })
          expect(one.logs).toEqual({ telephony_status_callbacks: [{ status: "ended" }] })
          const two = Option.getOrThrow(yield* repo.findById(runs[1]!.id))
          expect(two.gathered_context).toEqual({ outcome: "busy" })
          expect(two.logs).toBeNull()
          expect(Option.getOrThrow(yield* repo.findById(runs[2]!.id)).is_completed).toBe(false)
          // Post-call work is taken once, for completed runs only.
          expect((yield* repo.claimPostCalls([runs[0]!.id, runs[1]!.id, runs[2]!.id], t1)).map((r) => r.id).sort((a, b) => a - b))
            .toEqual([runs[0]!.id, runs[1]!.id])
          expect(yield* repo.claimPostCalls([runs[0]!.id], t1)).toEqual([])
        }).pipe(Effect.orDie))

      it.effect("outbox events of a batch go to the endpoints subscribed to their type, in multi-row inserts within the parameter limits", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const organization = yield* (yield* OrganizationsRepo).findOrCreate(`org-${Math.random().toString(36).slice(2)}`, t0)
          const other = yield* (yield* OrganizationsRepo).findOrCreate(`org-${Math.random().toString(36).slice(2)}`, t0)
          const webhooks = yield* WebhooksRepo
          const event = (organizationId: number, type: "run.started" | "run.ended", n: number) => ({
            organization_id: OrganizationId.make(organizationId), message_id: `msg_${type}_${n}_${Math.random()}`, event_type: type,
            ordering_key: `run:${n}`, payload: { n }, now: t0
          })
          expect(yield* webhooks.enqueue([event(organization.id, "run.started", 1)])).toBe(0)
          for (const [types, enabled] of [[["run.started"], true], [["run.started", "run.ended"], true], [["run.started"], false]] as const) {
            yield* sql`INSERT INTO webhook_endpoints (organization_id, url, event_types, enabled, secret, created_at, updated_at)
              VALUES (${organization.id}, ${"https://example.com/hook"}, ${JSON.stringify(types)}, ${enabled ? 1 : 0}, ${"sealed"}, ${t0}, ${t0})`
          }
          const written = yield* webhooks.enqueue([
            event(organization.id, "run.started", 1),
            event(organization.id, "run.ended", 2),
            event(other.id, "run.started", 3)
          ])
          // run.started: the two enabled endpoints; run.ended: one; the other organization: none.
          expect(written).toBe(3)
          const rows = yield* sql<{ event_type: string; ordering_key: string }>`SELECT event_type, ordering_key FROM webhook_deliveries
            WHERE organization_id = ${organization.id} ORDER BY id`
          expect(rows.map((r) => `${r.event_type} ${r.ordering_key}`)).toEqual(["run.started run:1", "run.started run:1", "run.ended run:2"])
          // A large batch to two endpoints: more values than one statement may bind on SQLite (32,766).
          const many = Array.from({ length: 1600 }, (_, i) => event(organization.id, "run.started", 100 + i))
          expect(yield* webhooks.enqueue(many)).toBe(3200)
        }).pipe(Effect.orDie))
    }
  )
}
