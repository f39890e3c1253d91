/**
 * The dispatcher's storage. Concurrency rules live in the claim: one transaction that locks the
 * organization's row (PostgreSQL: `FOR NO KEY UPDATE`; SQLite serializes writers anyway), counts the
 * calls in progress for the campaign and the organization, and claims at most what both limits leave,
 * with `FOR NO KEY UPDATE SKIP LOCKED` so several processes never pick the same contact.
 *
 * `NO KEY`: these locks only serialize claimers. A plain `FOR UPDATE` also blocks the foreign-key checks
 * of every other transaction touching a row that references the organization (they take `FOR KEY
 * SHARE`), so a claim (organization, then campaign) and a finishing call (campaign, then a run's
 * foreign-key check on the organization) deadlocked under load.
 */
import type { CampaignId, OrganizationId } from "@agentline/api/Ids"
import { type ClaimedContact, DispatchRepo } from "@agentline/core/dispatcher/DispatchRepo"
import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import {
  ACTIVE,
  decodeAttemptIds,
  decodeAttempts,
  decodeCampaignIds,
  decodeCampaigns,
  decodeClaimable,
  decodeCount,
  decodeDue,
  decodeEnded,
  decodeEndedIds,
  decodeLimit,
  decodeNextDue,
  decodeOpen,
  toAttempt,
  toCampaign
} from "./DispatchRows.js"
import * as StorageBoundary from "../StorageBoundary.js"

export const layer = Layer.effect(
  DispatchRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

    const lockOrganization = (organizationId: OrganizationId) =>
      (isPg
        ? sql`SELECT concurrent_call_limit AS "limit" FROM organizations WHERE id = ${organizationId} FOR NO KEY UPDATE`
        : sql`SELECT concurrent_call_limit AS "limit" FROM organizations WHERE id = ${organizationId}`).pipe(
          Effect.flatMap(decodeLimit),
          Effect.map((rows) => Option.fromNullable(rows[0]?.limit))
        )

    /** Calls in progress (attempts claimed or dialing) of an organization or a campaign. */
    const countActive = (scope: { readonly organizationId: OrganizationId } | { readonly campaignId: CampaignId }) =>
      sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM call_attempts
          WHERE ${"campaignId" in scope ? sql`campaign_id = ${scope.campaignId}` : sql`organization_id = ${scope.organizationId}`}
            AND ${sql.in("state", ACTIVE)}`
        .pipe(Effect.flatMap(decodeCount), Effect.map((rows) => rows[0]!.n))

    /** A timestamp parameter (PostgreSQL types a `CASE`'s branches from their values, not from the column). */
    const ts = (value: string | null) => (isPg ? sql`CAST(${value} AS TIMESTAMPTZ)` : sql`${value}`)
    /** `CASE id WHEN … THEN … END`: each row's own value in a statement that updates a batch of rows by id. */
    const byId = <T>(rows: ReadonlyArray<T>, id: (row: T) => number, value: (row: T) => Statement.Fragment) =>
      sql`CASE id ${sql.join(" ", false)(rows.map((row) => sql`WHEN CAST(${id(row)} AS INTEGER) THEN ${value(row)}`))} END`

    return DispatchRepo.of({
      registerNode: ({ nodeId, now }) =>
        Effect.gen(function*() {
          if (!isPg) {
            // SQLite is a single-process store: any other node recorded here is a previous run of this one.
            yield* sql`DELETE FROM dispatcher_nodes WHERE node_id <> ${nodeId}`
            yield* sql`UPDATE campaigns SET owner_node = NULL, owner_expires_at = NULL WHERE owner_node IS NOT NULL`
          }
          yield* sql`INSERT INTO dispatcher_nodes (node_id, started_at, heartbeat_at) VALUES (${nodeId}, ${now}, ${now})
                     ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = ${now}`
        }).pipe(StorageBoundary.orDie),

      heartbeat: ({ leaseUntil, nodeId, now }) =>
        Effect.gen(function*() {
          yield* sql`UPDATE dispatcher_nodes SET heartbeat_at = ${now} WHERE node_id = ${nodeId}`
          const rows = yield* sql`UPDATE campaigns SET owner_expires_at = ${leaseUntil}
                                  WHERE owner_node = ${nodeId} AND state = 'running' RETURNING id`.pipe(Effect.flatMap(decodeCampaignIds))
          return rows.map((r) => r.id)
        }).pipe(StorageBoundary.orDie),

      acquireCampaigns: ({ leaseUntil, nodeId, now }) =>
        sql`UPDATE campaigns SET owner_node = ${nodeId}, owner_expires_at = ${leaseUntil}
            WHERE state = 'running' AND (owner_node IS NULL OR owner_node = ${nodeId} OR owner_expires_at < ${now})
            RETURNING id`.pipe(Effect.flatMap(decodeCampaignIds), Effect.map((rows) => rows.map((r) => r.id)), StorageBoundary.orDie),

      releaseCampaign: ({ campaignId, nodeId }) =>
        sql`UPDATE campaigns SET owner_node = NULL, owner_expires_at = NULL WHERE id = ${campaignId} AND owner_node = ${nodeId}`
          .pipe(Effect.asVoid, StorageBoundary.orDie),

      loadCampaign: (campaignId) =>
        sql`SELECT id, organization_id, workflow_id, state, telephony_configuration_id, max_concurrency, retry_config,
                   schedule_config, circuit_breaker
            FROM campaigns WHERE id = ${campaignId}`.pipe(
          Effect.flatMap(decodeCampaigns),
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toCampaign)),
          StorageBoundary.orDie
        ),

      dueContacts: ({ campaignId, limit, now }) =>
        Effect.gen(function*() {
          // Due retries (and window-deferred contacts) first, then fresh contacts in CSV order; each query
          // walks the (campaign_id, state, next_attempt_at, id) index without sorting the whole queue.
          const retries = yield* sql`SELECT id, timezone FROM contacts
            WHERE campaign_id = ${campaignId} AND state = 'queued' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ${now}
            ORDER BY next_attempt_at LIMIT ${limit}`.pipe(Effect.flatMap(decodeDue))
          const fresh = retries.length >= limit ? [] : yield* sql`SELECT id, timezone FROM contacts
            WHERE campaign_id = ${campaignId} AND state = 'queued' AND next_attempt_at IS NULL
            ORDER BY id LIMIT ${limit - retries.length}`.pipe(Effect.flatMap(decodeDue))
          return [...retries, ...fresh]
        }).pipe(StorageBoundary.orDie),

      deferContacts: (deferrals) =>
        sql.withTransaction(Effect.forEach(deferrals, (d) =>
          sql`UPDATE contacts SET next_attempt_at = ${d.until} WHERE id = ${d.contactId} AND state = 'queued'`, { discard: true }))
          .pipe(StorageBoundary.orDie),

      claim: (input) =>
        sql.withTransaction(Effect.gen(function*() {
          const limit = yield* lockOrganization(input.organizationId)
          if (Option.isNone(limit)) return { claimed: [], skipped: 0, heldBackBy: "campaign" as const }
          const activeOrganization = yield* countActive({ organizationId: input.organizationId })
          const activeCampaign = yield* countActive({ campaignId: input.campaignId })
          const heldBackBy = limit.value - activeOrganization < input.campaignLimit - activeCampaign ? "organization" as const : "campaign" as const
          const none = { claimed: [], skipped: 0, heldBackBy }
          const capacity = Math.min(input.campaignLimit - activeCampaign, limit.value - activeOrganization)
          if (capacity <= 0 || input.contactIds.length === 0) return none
          const candidates = input.contactIds.slice(0, Math.max(capacity * 2, capacity + 16))
          const chosen = yield* (isPg
            ? sql`SELECT id, phone_number, initial_context, attempts FROM contacts
                  WHERE ${sql.in("id", candidates)} AND state = 'queued' ORDER BY id LIMIT ${capacity} FOR NO KEY UPDATE SKIP LOCKED`
            : sql`SELECT id, phone_number, initial_context, attempts FROM contacts
                  WHERE ${sql.in("id", candidates)} AND state = 'queued' ORDER BY id LIMIT ${capacity}`).pipe(
              Effect.flatMap(decodeClaimable)
            )
          if (chosen.length === 0) return none
          // Numbers on the organization's do-not-call list end here, in the claim's transaction: a number
          // listed a moment before the claim is never dialed.
          const listed = new Set((yield* sql<{ phone_number: string }>`SELECT phone_number FROM do_not_call
            WHERE organization_id = ${input.organizationId} AND ${sql.in("phone_number", chosen.map((c) => c.phone_number))}`)
            .map((r) => r.phone_number))
          const skipped = chosen.filter((c) => listed.has(c.phone_number))
          if (skipped.length > 0) {
            yield* sql`UPDATE contacts SET state = 'skipped', last_outcome = 'do_not_call', next_attempt_at = NULL, updated_at = ${input.now}
                       WHERE ${sql.in("id", skipped.map((c) => c.id))}`
            yield* sql`UPDATE campaigns SET processed_rows = processed_rows + ${skipped.length},
                       skipped_rows = skipped_rows + ${skipped.length}, updated_at = ${input.now} WHERE id = ${input.campaignId}`
          }
          const dialed = chosen.filter((c) => !listed.has(c.phone_number))
          if (dialed.length === 0) return { claimed: [], skipped: skipped.length, heldBackBy }
          yield* sql`UPDATE contacts SET state = 'dialing', attempts = attempts + 1, updated_at = ${input.now}
                     WHERE ${sql.in("id", dialed.map((c) => c.id))}`
          const inserted = yield* sql`INSERT INTO call_attempts ${
            sql.insert(dialed.map((c) => ({
              organization_id: input.organizationId,
              campaign_id: input.campaignId,
              contact_id: c.id,
              telephony_configuration_id: input.telephonyConfigurationId,
              provider: input.provider,
              attempt_number: c.attempts + 1,
              to_number: c.phone_number,
              state: "claimed",
              node_id: input.nodeId,
              created_at: input.now,
              reconcile_at: input.reconcileAt
            })))
          } RETURNING id, contact_id`.pipe(Effect.flatMap(decodeAttemptIds))
          const attemptOf = new Map(inserted.map((r) => [r.contact_id, r.id]))
          yield* sql`UPDATE campaigns SET executed_count = executed_count + ${dialed.length}, updated_at = ${input.now}
                     WHERE id = ${input.campaignId}`
          return {
            claimed: dialed.map((c): ClaimedContact => ({
              attemptId: attemptOf.get(c.id)!,
              contactId: c.id,
              phoneNumber: c.phone_number,
              initialContext: c.initial_context,
              attemptNumber: c.attempts + 1
            })),
            skipped: skipped.length,
            heldBackBy
          }
        })).pipe(StorageBoundary.orDie),

      claimSingle: (input) =>
        sql.withTransaction(Effect.gen(function*() {
          const limit = yield* lockOrganization(input.organizationId)
          if (Option.isNone(limit)) return Option.none()
          const active = yield* countActive({ organizationId: input.organizationId })
          if (active >= limit.value) return Option.none()
          const [row] = yield* sql`INSERT INTO call_attempts
            (organization_id, telephony_configuration_id, provider, attempt_number, to_number, state, node_id, created_at, reconcile_at)
            VALUES (${input.organizationId}, ${input.telephonyConfigurationId}, ${input.provider}, 1, ${input.to}, 'claimed',
                    ${input.nodeId}, ${input.now}, ${input.reconcileAt})
            RETURNING id, contact_id`.pipe(Effect.flatMap(decodeAttemptIds))
          return Option.some(row!.id)
        })).pipe(StorageBoundary.orDie),

      markDialing: (attempts) =>
        attempts.length === 0 ? Effect.void : sql`UPDATE call_attempts SET state = 'dialing',
            run_id = ${byId(attempts, (a) => a.attemptId, (a) => sql`CAST(${a.runId} AS INTEGER)`)},
            from_number = ${byId(attempts, (a) => a.attemptId, (a) => sql`${a.from}`)},
            reconcile_at = ${byId(attempts, (a) => a.attemptId, (a) => ts(a.reconcileAt))}
          WHERE ${sql.in("id", attempts.map((a) => a.attemptId))} AND state = 'claimed'`.pipe(Effect.asVoid, StorageBoundary.orDie),

      setProviderCallIds: (calls) =>
        calls.length === 0 ? Effect.void : sql`UPDATE call_attempts
          SET provider_call_id = ${byId(calls, (c) => c.attemptId, (c) => sql`${c.providerCallId}`)}
          WHERE ${sql.in("id", calls.map((c) => c.attemptId))}`.pipe(Effect.asVoid, StorageBoundary.orDie),

      finishAttempts: (all) =>
        sql.withTransaction(Effect.gen(function*() {
          // An attempt twice in one batch (two fibers ending it at once): the first is the end, the rest late.
          const first = new Map<number, number>()
          all.forEach((end, i) => first.has(end.attemptId) || first.set(end.attemptId, i))
          const ends = [...first.values()].map((i) => all[i]!)
          if (ends.length === 0) return []
          const ended = yield* sql`UPDATE call_attempts SET
              state = ${byId(ends, (e) => e.attemptId, (e) => sql`${e.outcome === "interrupted" ? "interrupted" : "ended"}`)},
              outcome = ${byId(ends, (e) => e.attemptId, (e) => sql`${e.outcome}`)},
              duration_ms = ${byId(ends, (e) => e.attemptId, (e) => sql`CAST(${Math.round(e.durationMillis)} AS INTEGER)`)},
              ended_at = ${byId(ends, (e) => e.attemptId, (e) => ts(e.now))}
            WHERE ${sql.in("id", ends.map((e) => e.attemptId))} AND ${sql.in("state", ACTIVE)}
            RETURNING id, campaign_id, contact_id`.pipe(Effect.flatMap(decodeEndedIds))
          const endOf = new Map(ends.map((e) => [e.attemptId as number, e]))
          const moves = ended.flatMap((row) => {
            const end = endOf.get(row.id)!
            return row.contact_id === null || row.campaign_id === null || end.contactNext === undefined
              ? []
              : [{ contactId: row.contact_id, campaignId: row.campaign_id, next: end.contactNext, end }]
          })
          if (moves.length > 0) {
            yield* sql`UPDATE contacts SET
                state = ${byId(moves, (m) => m.contactId, (m) => sql`${m.next._tag === "Retry" ? "queued" : m.next.state}`)},
                next_attempt_at = ${byId(moves, (m) => m.contactId, (m) => ts(m.next._tag === "Retry" ? new Date(m.next.at).toISOString() : null))},
                last_outcome = ${byId(moves, (m) => m.contactId, (m) => sql`${m.end.outcome}`)},
                updated_at = ${byId(moves, (m) => m.contactId, (m) => ts(m.end.now))}
              WHERE ${sql.in("id", moves.map((m) => m.contactId))} AND state = 'dialing'`
            // The counters of each campaign in one statement (the campaign's row is the batch's hot spot).
            const counters = new Map<number, { queued: number; processed: number; failed: number; now: string }>()
            for (const m of moves) {
              const c = counters.get(m.campaignId) ?? { queued: 0, processed: 0, failed: 0, now: m.end.now }
              if (m.next._tag === "Retry") c.queued++
              else {
                c.processed++
                if (!m.next.reached) c.failed++
              }
              c.now = m.end.now
              counters.set(m.campaignId, c)
            }
            // In id order: two processes' batches never lock the same campaigns in opposite orders (deadlock).
            for (const [campaignId, c] of [...counters].sort(([a], [b]) => a - b)) {
              yield* sql`UPDATE campaigns SET total_queued_count = total_queued_count + ${c.queued},
                         processed_rows = processed_rows + ${c.processed}, failed_rows = failed_rows + ${c.failed},
                         updated_at = ${c.now} WHERE id = ${campaignId}`
            }
          }
          const endedIds = new Set(ended.map((row) => row.id as number))
          return all.map((end, i) => first.get(end.attemptId) === i && endedIds.has(end.attemptId))
        })).pipe(StorageBoundary.orDie),

      releaseClaimed: (attemptId) =>
        sql.withTransaction(Effect.gen(function*() {
          const [attempt] = yield* sql`DELETE FROM call_attempts WHERE id = ${attemptId} AND state = 'claimed'
                                       RETURNING campaign_id, contact_id`.pipe(Effect.flatMap(decodeEnded))
          if (!attempt || attempt.contact_id === null) return
          yield* sql`UPDATE contacts SET state = 'queued', attempts = attempts - 1 WHERE id = ${attempt.contact_id} AND state = 'dialing'`
          yield* sql`UPDATE campaigns SET executed_count = executed_count - 1 WHERE id = ${attempt.campaign_id}`
        })).pipe(StorageBoundary.orDie),

      nextDue: (campaignId) =>
        sql`SELECT CAST(COUNT(*) AS INTEGER) AS n,
                   CAST(SUM(CASE WHEN next_attempt_at IS NULL THEN 1 ELSE 0 END) AS INTEGER) AS fresh,
                   MIN(next_attempt_at) AS earliest
            FROM contacts WHERE campaign_id = ${campaignId} AND state = 'queued'`.pipe(
          Effect.flatMap(decodeNextDue),
          Effect.map(([row]) => (row!.n === 0 ? Option.none() : Option.some((row!.fresh ?? 0) > 0 ? null : row!.earliest))),
          StorageBoundary.orDie
        ),

      postpone: ({ attemptId, reconcileAt }) =>
        sql`UPDATE call_attempts SET reconcile_at = ${reconcileAt} WHERE id = ${attemptId} AND ${sql.in("state", ACTIVE)}`
          .pipe(Effect.asVoid, StorageBoundary.orDie),

      orphanedAttempts: ({ campaignId, nodeId, staleBefore }) =>
        sql`SELECT a.* FROM call_attempts a LEFT JOIN dispatcher_nodes n ON n.node_id = a.node_id
            WHERE ${sql.in("a.state", ACTIVE)} AND a.node_id <> ${nodeId}
              AND (n.node_id IS NULL OR n.heartbeat_at < ${staleBefore})
              ${campaignId === undefined ? sql`` : sql`AND a.campaign_id = ${campaignId}`}
            ORDER BY a.id`.pipe(Effect.flatMap(decodeOpen), StorageBoundary.orDie),

      overdueAttempts: ({ limit, nodeId, now }) =>
        sql`SELECT * FROM call_attempts
            WHERE node_id = ${nodeId} AND ${sql.in("state", ACTIVE)} AND reconcile_at IS NOT NULL AND reconcile_at < ${now}
            ORDER BY reconcile_at LIMIT ${limit}`.pipe(Effect.flatMap(decodeOpen), StorageBoundary.orDie),

      openAttemptsOf: ({ campaignId, nodeId }) =>
        sql`SELECT * FROM call_attempts WHERE node_id = ${nodeId} AND ${sql.in("state", ACTIVE)}
            ${campaignId === undefined ? sql`` : sql`AND campaign_id = ${campaignId}`}
            ORDER BY id`.pipe(Effect.flatMap(decodeOpen), StorageBoundary.orDie),

      retireNode: (nodeId) => sql`DELETE FROM dispatcher_nodes WHERE node_id = ${nodeId}`.pipe(Effect.asVoid, StorageBoundary.orDie),

      findAttempt: (attemptId) =>
        sql`SELECT * FROM call_attempts WHERE id = ${attemptId}`.pipe(
          Effect.flatMap(decodeAttempts),
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toAttempt)),
          StorageBoundary.orDie
        )
    })
  })
)
