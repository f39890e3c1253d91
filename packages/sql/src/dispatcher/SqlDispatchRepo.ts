/**
 * The dispatcher's storage. Concurrency rules live in the claim: one transaction that locks the
 * organization's row (PostgreSQL: `FOR UPDATE`; SQLite serializes writers anyway), counts the calls in
 * progress for the campaign and the organization, and claims at most what both limits leave, with
 * `FOR UPDATE SKIP LOCKED` so several processes never pick the same contact.
 */
import {
  type CampaignLogEntry,
  type ClaimedContact,
  type DispatchCampaign,
  DispatchRepo,
  type OpenAttempt
} from "@agentline/core/dispatcher/DispatchRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as Columns from "../Columns.js"

const ACTIVE = ["claimed", "dialing"] as const

const toCampaign = (row: any): DispatchCampaign => ({
  id: Columns.int(row.id),
  organization_id: Columns.int(row.organization_id),
  workflow_id: Columns.int(row.workflow_id),
  name: row.name,
  state: row.state,
  telephony_configuration_id: Columns.intOrNull(row.telephony_configuration_id),
  max_concurrency: Columns.intOrNull(row.max_concurrency),
  retry_config: Columns.json(row.retry_config),
  schedule_config: Columns.jsonOrNull(row.schedule_config),
  circuit_breaker: Columns.json(row.circuit_breaker)
})

const toOpenAttempt = (row: any): OpenAttempt & { outcome: any } => ({
  id: Columns.int(row.id),
  organization_id: Columns.int(row.organization_id),
  campaign_id: Columns.intOrNull(row.campaign_id),
  contact_id: Columns.intOrNull(row.contact_id),
  run_id: Columns.intOrNull(row.run_id),
  telephony_configuration_id: Columns.intOrNull(row.telephony_configuration_id),
  provider: row.provider,
  provider_call_id: row.provider_call_id ?? null,
  state: row.state,
  attempt_number: Columns.int(row.attempt_number),
  node_id: row.node_id,
  outcome: row.outcome ?? null
})

export const layer = Layer.effect(
  DispatchRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

    /** Appends a campaign log entry inside an UPDATE's SET list. */
    const appendLog = (entry: CampaignLogEntry) =>
      isPg
        ? sql`logs = logs || jsonb_build_array(${JSON.stringify(entry)}::jsonb)`
        : sql`logs = json_insert(logs, '$[#]', json(${JSON.stringify(entry)}))`

    const lockOrganization = (organizationId: number) =>
      isPg
        ? sql<{ limit: number }>`SELECT concurrent_call_limit AS "limit" FROM organizations WHERE id = ${organizationId} FOR UPDATE`
        : sql<{ limit: number }>`SELECT concurrent_call_limit AS "limit" FROM organizations WHERE id = ${organizationId}`

    const countActive = (condition: any) =>
      sql<{ n: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM call_attempts WHERE ${condition} AND ${sql.in("state", ACTIVE)}`
        .pipe(Effect.map((rows) => Columns.int(rows[0]!.n)))

    return DispatchRepo.of({
      registerNode: (nodeId, now) =>
        Effect.gen(function*() {
          if (!isPg) {
            // SQLite is a single-process store: any other node recorded here is a previous run of this one.
            yield* sql`DELETE FROM dispatcher_nodes WHERE node_id <> ${nodeId}`
            yield* sql`UPDATE campaigns SET owner_node = NULL, owner_expires_at = NULL WHERE owner_node IS NOT NULL`
          }
          yield* sql`INSERT INTO dispatcher_nodes (node_id, started_at, heartbeat_at) VALUES (${nodeId}, ${now}, ${now})
                     ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = ${now}`
        }).pipe(Effect.orDie),

      heartbeat: (nodeId, now, leaseUntil) =>
        Effect.gen(function*() {
          yield* sql`UPDATE dispatcher_nodes SET heartbeat_at = ${now} WHERE node_id = ${nodeId}`
          const rows = yield* sql`UPDATE campaigns SET owner_expires_at = ${leaseUntil}
                                  WHERE owner_node = ${nodeId} AND state = 'running' RETURNING id`
          return rows.map((r) => Columns.int(r.id))
        }).pipe(Effect.orDie),

      acquireCampaigns: (nodeId, now, leaseUntil) =>
        sql`UPDATE campaigns SET owner_node = ${nodeId}, owner_expires_at = ${leaseUntil}
            WHERE state = 'running' AND (owner_node IS NULL OR owner_node = ${nodeId} OR owner_expires_at < ${now})
            RETURNING id`.pipe(Effect.map((rows) => rows.map((r) => Columns.int(r.id))), Effect.orDie),

      releaseCampaign: (campaignId, nodeId) =>
        sql`UPDATE campaigns SET owner_node = NULL, owner_expires_at = NULL WHERE id = ${campaignId} AND owner_node = ${nodeId}`
          .pipe(Effect.asVoid, Effect.orDie),

      loadCampaign: (campaignId) =>
        sql`SELECT * FROM campaigns WHERE id = ${campaignId}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toCampaign)),
          Effect.orDie
        ),

      dueContacts: (campaignId, now, limit) =>
        Effect.gen(function*() {
          // Due retries (and window-deferred contacts) first, then fresh contacts in CSV order; each query
          // walks the (campaign_id, state, next_attempt_at, id) index without sorting the whole queue.
          const retries = yield* sql`SELECT id, timezone FROM contacts
            WHERE campaign_id = ${campaignId} AND state = 'queued' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ${now}
            ORDER BY next_attempt_at LIMIT ${limit}`
          const fresh = retries.length >= limit ? [] : yield* sql`SELECT id, timezone FROM contacts
            WHERE campaign_id = ${campaignId} AND state = 'queued' AND next_attempt_at IS NULL
            ORDER BY id LIMIT ${limit - retries.length}`
          return [...retries, ...fresh].map((r) => ({ id: Columns.int(r.id), timezone: (r.timezone ?? null) as string | null }))
        }).pipe(Effect.orDie),

      deferContacts: (deferrals) =>
        sql.withTransaction(Effect.forEach(deferrals, (d) =>
          sql`UPDATE contacts SET next_attempt_at = ${d.until} WHERE id = ${d.id} AND state = 'queued'`, { discard: true }))
          .pipe(Effect.orDie),

      claim: (input) =>
        sql.withTransaction(Effect.gen(function*() {
          const [org] = yield* lockOrganization(input.organizationId)
          if (!org) return []
          const activeOrganization = yield* countActive(sql`organization_id = ${input.organizationId}`)
          const activeCampaign = yield* countActive(sql`campaign_id = ${input.campaignId}`)
          const capacity = Math.min(input.campaignLimit - activeCampaign, Columns.int(org.limit) - activeOrganization)
          if (capacity <= 0 || input.contactIds.length === 0) return []
          const candidates = input.contactIds.slice(0, Math.max(capacity * 2, capacity + 16))
          const chosen = yield* (isPg
            ? sql`SELECT id, row_number, phone_number, timezone, initial_context, attempts FROM contacts
                  WHERE ${sql.in("id", candidates)} AND state = 'queued' ORDER BY id LIMIT ${capacity} FOR UPDATE SKIP LOCKED`
            : sql`SELECT id, row_number, phone_number, timezone, initial_context, attempts FROM contacts
                  WHERE ${sql.in("id", candidates)} AND state = 'queued' ORDER BY id LIMIT ${capacity}`)
          if (chosen.length === 0) return []
          const ids = chosen.map((c) => Columns.int(c.id))
          yield* sql`UPDATE contacts SET state = 'dialing', attempts = attempts + 1, updated_at = ${input.now}
                     WHERE ${sql.in("id", ids)}`
          const inserted = yield* sql`INSERT INTO call_attempts ${
            sql.insert(chosen.map((c) => ({
              organization_id: input.organizationId,
              campaign_id: input.campaignId,
              contact_id: Columns.int(c.id),
              telephony_configuration_id: input.telephonyConfigurationId,
              provider: input.provider,
              attempt_number: Columns.int(c.attempts) + 1,
              to_number: c.phone_number,
              state: "claimed",
              node_id: input.nodeId,
              created_at: input.now
            })))
          } RETURNING id, contact_id`
          const attemptOf = new Map(inserted.map((r) => [Columns.int(r.contact_id), Columns.int(r.id)]))
          yield* sql`UPDATE campaigns SET executed_count = executed_count + ${chosen.length}, updated_at = ${input.now}
                     WHERE id = ${input.campaignId}`
          return chosen.map((c): ClaimedContact => ({
            attemptId: attemptOf.get(Columns.int(c.id))!,
            contactId: Columns.int(c.id),
            rowNumber: Columns.int(c.row_number),
            phoneNumber: c.phone_number as string,
            timezone: (c.timezone ?? null) as string | null,
            initialContext: Columns.json(c.initial_context),
            attemptNumber: Columns.int(c.attempts) + 1
          }))
        })).pipe(Effect.orDie),

      claimSingle: (input) =>
        sql.withTransaction(Effect.gen(function*() {
          const [org] = yield* lockOrganization(input.organizationId)
          if (!org) return Option.none()
          const active = yield* countActive(sql`organization_id = ${input.organizationId}`)
          if (active >= Columns.int(org.limit)) return Option.none()
          const [row] = yield* sql`INSERT INTO call_attempts
            (organization_id, telephony_configuration_id, provider, attempt_number, to_number, state, node_id, created_at)
            VALUES (${input.organizationId}, ${input.telephonyConfigurationId}, ${input.provider}, 1, ${input.to}, 'claimed',
                    ${input.nodeId}, ${input.now})
            RETURNING id`
          return Option.some(Columns.int(row!.id))
        })).pipe(Effect.orDie),

      markDialing: (attemptId, runId, from) =>
        sql`UPDATE call_attempts SET state = 'dialing', run_id = ${runId}, from_number = ${from}
            WHERE id = ${attemptId} AND state = 'claimed'`.pipe(Effect.asVoid, Effect.orDie),

      setProviderCallId: (attemptId, providerCallId) =>
        sql`UPDATE call_attempts SET provider_call_id = ${providerCallId} WHERE id = ${attemptId}`.pipe(Effect.asVoid, Effect.orDie),

      finishAttempt: (input) =>
        sql.withTransaction(Effect.gen(function*() {
          const [attempt] = yield* sql`UPDATE call_attempts
            SET state = ${input.outcome === "interrupted" ? "interrupted" : "ended"}, outcome = ${input.outcome},
                duration_seconds = ${input.durationSeconds}, ended_at = ${input.now}
            WHERE id = ${input.attemptId} AND ${sql.in("state", ACTIVE)}
            RETURNING campaign_id, contact_id`
          if (!attempt) return false
          const contactId = Columns.intOrNull(attempt.contact_id)
          const campaignId = Columns.intOrNull(attempt.campaign_id)
          const next = input.contactNext
          if (contactId === null || campaignId === null || next === undefined) return true
          if (next._tag === "Retry") {
            yield* sql`UPDATE contacts SET state = 'queued', next_attempt_at = ${new Date(next.at).toISOString()},
                       last_outcome = ${input.outcome}, updated_at = ${input.now} WHERE id = ${contactId} AND state = 'dialing'`
            yield* sql`UPDATE campaigns SET total_queued_count = total_queued_count + 1, updated_at = ${input.now}
                       WHERE id = ${campaignId}`
          } else {
            yield* sql`UPDATE contacts SET state = ${next.state}, next_attempt_at = NULL, last_outcome = ${input.outcome},
                       updated_at = ${input.now} WHERE id = ${contactId} AND state = 'dialing'`
            yield* sql`UPDATE campaigns SET processed_rows = processed_rows + 1,
                       failed_rows = failed_rows + ${next.reached ? 0 : 1}, updated_at = ${input.now} WHERE id = ${campaignId}`
          }
          return true
        })).pipe(Effect.orDie),

      releaseClaimed: (attemptId) =>
        sql.withTransaction(Effect.gen(function*() {
          const [attempt] = yield* sql`DELETE FROM call_attempts WHERE id = ${attemptId} AND state IN ('claimed', 'dialing')
                                       RETURNING campaign_id, contact_id`
          if (!attempt || attempt.contact_id === null) return
          yield* sql`UPDATE contacts SET state = 'queued', attempts = attempts - 1 WHERE id = ${attempt.contact_id} AND state = 'dialing'`
          yield* sql`UPDATE campaigns SET executed_count = executed_count - 1 WHERE id = ${attempt.campaign_id}`
        })).pipe(Effect.orDie),

      nextDue: (campaignId) =>
        sql`SELECT CAST(COUNT(*) AS INTEGER) AS n,
                   CAST(SUM(CASE WHEN next_attempt_at IS NULL THEN 1 ELSE 0 END) AS INTEGER) AS fresh,
                   MIN(next_attempt_at) AS earliest
            FROM contacts WHERE campaign_id = ${campaignId} AND state = 'queued'`.pipe(
          Effect.map(([row]) =>
            Columns.int(row!.n) === 0
              ? Option.none()
              : Option.some(Columns.int(row!.fresh) > 0 ? null : Columns.tsOrNull(row!.earliest))
          ),
          Effect.orDie
        ),

      tryComplete: (campaignId, entry) =>
        sql`UPDATE campaigns SET state = 'completed', completed_at = ${entry.ts}, updated_at = ${entry.ts}, ${appendLog(entry)}
            WHERE id = ${campaignId} AND state = 'running'
              AND NOT EXISTS (SELECT 1 FROM contacts WHERE campaign_id = ${campaignId} AND state IN ('queued', 'dialing'))
            RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      setState: (campaignId, from, to, entry) =>
        sql`UPDATE campaigns SET state = ${to}, updated_at = ${entry.ts}, ${appendLog(entry)}
            WHERE id = ${campaignId} AND ${sql.in("state", from)} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      orphanedAttempts: ({ campaignId, nodeId, staleBefore }) =>
        sql`SELECT a.* FROM call_attempts a LEFT JOIN dispatcher_nodes n ON n.node_id = a.node_id
            WHERE ${sql.in("a.state", ACTIVE)} AND a.node_id <> ${nodeId}
              AND (n.node_id IS NULL OR n.heartbeat_at < ${staleBefore})
              AND ${campaignId === null ? sql`a.campaign_id IS NULL` : sql`a.campaign_id = ${campaignId}`}
            ORDER BY a.id`.pipe(Effect.map((rows) => rows.map(toOpenAttempt)), Effect.orDie),

      findAttempt: (attemptId) =>
        sql`SELECT * FROM call_attempts WHERE id = ${attemptId}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toOpenAttempt)),
          Effect.orDie
        )
    })
  })
)
