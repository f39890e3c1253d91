import { OrganizationId, WebhookDeliveryId, WebhookEndpointId } from "@agentline/api/Ids"
import { WebhookAttempt, WebhookEventType } from "@agentline/api/webhooks/Webhooks"
import { WebhooksRepo } from "@agentline/core/webhooks/WebhooksRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

const EndpointRow = Schema.Struct({
  id: Columns.Id(WebhookEndpointId),
  organization_id: Columns.Id(OrganizationId),
  url: Schema.String,
  description: Schema.NullOr(Schema.String),
  event_types: Columns.Json(Schema.Array(WebhookEventType)),
  enabled: Columns.Bool,
  secret: Schema.String,
  disabled_reason: Schema.NullOr(Schema.String),
  failing_since: Schema.NullOr(Columns.Ts),
  created_at: Columns.Ts,
  updated_at: Columns.Ts
})
const endpointRows = Columns.decodeRows(EndpointRow)
const subscriptionRows = Columns.decodeRows(EndpointRow.pick("id", "organization_id", "event_types"))
const toEndpoint = ({ secret, ...row }: typeof EndpointRow.Type) => ({ ...row, sealed_secret: secret })

const DeliveryRow = Schema.Struct({
  id: Columns.Id(WebhookDeliveryId),
  endpoint_id: Columns.Id(WebhookEndpointId),
  organization_id: Columns.Id(OrganizationId),
  message_id: Schema.String,
  event_type: WebhookEventType,
  payload: Columns.Json(Schema.Unknown),
  status: Schema.Literal("pending", "delivered", "failed"),
  attempt_count: Columns.Int,
  attempts: Columns.Json(Schema.Array(WebhookAttempt)),
  next_attempt_at: Schema.NullOr(Columns.Ts),
  created_at: Columns.Ts,
  delivered_at: Schema.NullOr(Columns.Ts)
})
const deliveryRows = Columns.decodeRows(DeliveryRow)
const toDelivery = ({ endpoint_id: _, organization_id: __, ...row }: typeof DeliveryRow.Type) => row

const DirectTarget = Schema.Struct({
  method: Schema.Literal("GET", "POST", "PUT", "PATCH", "DELETE"),
  url: Schema.String,
  headers: Schema.Record({ key: Schema.String, value: Schema.String }),
  credential_uuid: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  node_id: Schema.String,
  node_name: Schema.String
})
const ClaimedRow = Schema.Struct({
  ...DeliveryRow.pick("id", "organization_id", "message_id", "payload", "attempt_count", "created_at").fields,
  endpoint_id: Schema.NullOr(Columns.Id(WebhookEndpointId)),
  event_type: Schema.String,
  run_id: Schema.NullOr(Columns.Int),
  target: Schema.NullOr(Columns.Json(DirectTarget)),
  url: Schema.NullOr(Schema.String),
  secret: Schema.NullOr(Schema.String),
  endpoint_failing_since: Schema.NullOr(Schema.Unknown)
})
const claimedRows = Columns.decodeRows(ClaimedRow)
const DueRow = Schema.Struct({
  id: Columns.Id(WebhookDeliveryId),
  endpoint_id: Schema.NullOr(Columns.Id(WebhookEndpointId)),
  ordering_key: Schema.String,
  url: Schema.NullOr(Schema.String)
})
const dueRows = Columns.decodeRows(DueRow)
const idRows = Columns.decodeRows(Schema.Struct({ id: Columns.Id(WebhookDeliveryId) }))
const FailingRow = Schema.Struct({ failing_since: Columns.Ts })
const failingRow = Columns.decodeSingle(FailingRow)
const CountRow = Schema.Struct({ n: Columns.Int })
const count = Columns.decodeSingle(CountRow)

export const layer = Layer.effect(
  WebhooksRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findEndpoint = (organizationId: number, id: number) =>
      sql`SELECT * FROM webhook_endpoints WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
        Effect.flatMap(endpointRows),
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toEndpoint))
      )

    const findDelivery = (organizationId: number, endpointId: number, id: number) =>
      sql`SELECT * FROM webhook_deliveries WHERE id = ${id} AND endpoint_id = ${endpointId} AND organization_id = ${organizationId}`.pipe(
        Effect.flatMap(deliveryRows),
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toDelivery))
      )

    /** What an attempt reads of a delivery it claimed (not its log of attempts). */
    const claimedColumns = (table: string) =>
      sql.unsafe(
        ["id", "endpoint_id", "run_id", "target", "organization_id", "message_id", "event_type", "payload", "attempt_count", "created_at"]
          .map((column) => `${table}.${column}`).join(", ")
      )

    return WebhooksRepo.of({
      insertEndpoint: (input) =>
        sql`INSERT INTO webhook_endpoints (organization_id, url, description, event_types, enabled, secret, created_at, updated_at)
            VALUES (${input.organization_id}, ${input.url}, ${input.description}, ${Columns.jsonParam(input.event_types)},
                    ${Columns.boolParam(input.enabled)}, ${input.sealed_secret}, ${input.now}, ${input.now})
            RETURNING *`.pipe(Effect.flatMap(endpointRows), Effect.map((rows) => toEndpoint(rows[0]!)), StorageBoundary.orDie),
      listEndpoints: (organizationId) =>
        sql`SELECT * FROM webhook_endpoints WHERE organization_id = ${organizationId} ORDER BY id`.pipe(
          Effect.flatMap(endpointRows),
          Effect.map((rows) => rows.map(toEndpoint)),
          StorageBoundary.orDie
        ),
      findEndpoint: (organizationId, id) => findEndpoint(organizationId, id).pipe(StorageBoundary.orDie),
      updateEndpoint: (organizationId, id, patch, now) =>
        Effect.gen(function*() {
          const set: Record<string, unknown> = { updated_at: now }
          if (patch.url !== undefined) set.url = patch.url
          if (patch.description !== undefined) set.description = patch.description
          if (patch.event_types !== undefined) set.event_types = Columns.jsonParam(patch.event_types)
          if (patch.enabled !== undefined) set.enabled = Columns.boolParam(patch.enabled)
          if (patch.disabled_reason !== undefined) set.disabled_reason = patch.disabled_reason
          if (patch.sealed_secret !== undefined) set.secret = patch.sealed_secret
          // Enabled again: its failures so far no longer count towards disabling it.
          if (patch.enabled === true) set.failing_since = null
          const rows = yield* sql`UPDATE webhook_endpoints SET ${sql.update(set)}
            WHERE id = ${id} AND organization_id = ${organizationId} RETURNING *`.pipe(Effect.flatMap(endpointRows))
          return Option.map(Option.fromNullable(rows[0]), toEndpoint)
        }).pipe(StorageBoundary.orDie),
      deleteEndpoint: (organizationId, id) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM webhook_deliveries WHERE endpoint_id = ${id} AND organization_id = ${organizationId}`
          const deleted = yield* sql`DELETE FROM webhook_endpoints WHERE id = ${id} AND organization_id = ${organizationId} RETURNING id`
          return deleted.length > 0
        })).pipe(StorageBoundary.orDie),
      // On the dialing path (every call writes two events, and a claim a batch of them): one read of the
      // endpoints, and inserts only when somebody subscribed (most organizations have nobody).
      enqueue: (events) =>
        Effect.gen(function*() {
          if (events.length === 0) return 0
          const organizations = [...new Set(events.map((e) => e.organization_id))]
          const endpoints = yield* sql`SELECT id, organization_id, event_types FROM webhook_endpoints
            WHERE ${sql.in("organization_id", organizations)} AND enabled = ${Columns.boolParam(true)}`.pipe(
            Effect.flatMap(subscriptionRows)
          )
          const deliveries = events.flatMap((event) =>
            endpoints
              .filter((e) => e.organization_id === event.organization_id && e.event_types.includes(event.event_type))
              .map((e) => ({
                organization_id: event.organization_id,
                endpoint_id: e.id,
                message_id: event.message_id,
                event_type: event.event_type,
                ordering_key: event.ordering_key,
                payload: Columns.jsonParam(event.payload),
                status: "pending",
                attempt_count: 0,
                attempts: "[]",
                next_attempt_at: event.now,
                created_at: event.now
              }))
          )
          // In chunks: a batch of a thousand runs to several endpoints would pass the databases' parameter limits.
          for (let i = 0; i < deliveries.length; i += 500) {
            yield* sql`INSERT INTO webhook_deliveries ${sql.insert(deliveries.slice(i, i + 500))}`
          }
          return deliveries.length
        }).pipe(StorageBoundary.orDie),
      enqueueDirect: (request) =>
        sql`INSERT INTO webhook_deliveries ${
          sql.insert({
            organization_id: request.organization_id,
            endpoint_id: null,
            run_id: request.run_id,
            target: Columns.jsonParam(request.target),
            message_id: request.message_id,
            event_type: "workflow.webhook_node",
            ordering_key: request.ordering_key,
            payload: Columns.jsonParam(request.payload ?? null) ?? "null",
            status: "pending",
            attempt_count: 0,
            attempts: "[]",
            next_attempt_at: request.now,
            created_at: request.now
          })
        }`.pipe(Effect.asVoid, StorageBoundary.orDie),
      // The poll: what is due, first in line, and only the columns choosing among them takes (it may
      // answer more than fits in the free slots; the payloads are read for those claimed, once).
      due: (now, limit) =>
        sql.onDialectOrElse({
          // Each key's first pending delivery in one pass over the pending-order index, then those due.
          // (The NOT EXISTS form below depends on the planner walking the due order and stopping at the
          // limit; PostgreSQL's planner, when its statistics say few deliveries are pending, probes every
          // pending delivery against every earlier one instead: seconds a poll for a backlog of thousands.)
          pg: () =>
            sql`SELECT h.id, h.endpoint_id, h.ordering_key, e.url, h.next_attempt_at FROM (
                  SELECT DISTINCT ON (endpoint_id, ordering_key) id, endpoint_id, ordering_key, next_attempt_at, locked_until
                  FROM webhook_deliveries WHERE status = 'pending' AND endpoint_id IS NOT NULL
                  ORDER BY endpoint_id, ordering_key, id
                ) h JOIN webhook_endpoints e ON e.id = h.endpoint_id AND e.enabled = ${Columns.boolParam(true)}
                WHERE h.next_attempt_at <= ${now} AND (h.locked_until IS NULL OR h.locked_until <= ${now})
                UNION ALL
                SELECT d.id, d.endpoint_id, d.ordering_key, d.target->>'url', d.next_attempt_at FROM webhook_deliveries d
                WHERE d.status = 'pending' AND d.endpoint_id IS NULL AND d.next_attempt_at <= ${now}
                  AND (d.locked_until IS NULL OR d.locked_until <= ${now})
                ORDER BY next_attempt_at, id LIMIT ${limit}`,
          orElse: () =>
            sql`SELECT d.id, d.endpoint_id, d.ordering_key, COALESCE(json_extract(d.target, '$.url'), e.url) AS url
                FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
                WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}
                  AND (d.locked_until IS NULL OR d.locked_until <= ${now})
                  AND (d.endpoint_id IS NULL OR e.enabled = ${Columns.boolParam(true)})
                  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id
                                  AND p.ordering_key = d.ordering_key AND p.status = 'pending' AND p.id < d.id)
                ORDER BY d.next_attempt_at, d.id LIMIT ${limit}`
        }).pipe(
          Effect.flatMap(dueRows),
          Effect.map((rows) => rows.map((r) => ({ id: r.id, endpoint_id: r.endpoint_id, ordering_key: r.ordering_key, url: r.url ?? "" }))),
          StorageBoundary.orDie
        ),
      // One statement takes them all (a row another worker took meanwhile is left out), then one read
      // of what was taken, with its endpoint.
      claim: (ids, now, lockedUntil) =>
        Effect.gen(function*() {
          if (ids.length === 0) return []
          const claimable = sql`${sql.in("id", ids)} AND status = 'pending' AND (locked_until IS NULL OR locked_until <= ${now})`
          const rows = yield* sql.onDialectOrElse({
            // One round trip; rows another process is claiming at this moment are skipped, not waited for
            // (nor locked in an order that could deadlock with it).
            pg: () =>
              sql`WITH taken AS (
                  UPDATE webhook_deliveries SET locked_until = ${lockedUntil}
                  WHERE id IN (SELECT id FROM webhook_deliveries WHERE ${claimable} FOR UPDATE SKIP LOCKED)
                  RETURNING ${claimedColumns("webhook_deliveries")}
                )
                SELECT d.*, e.url, e.secret, e.failing_since AS endpoint_failing_since
                FROM taken d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id`,
            orElse: () =>
              Effect.flatMap(
                sql`UPDATE webhook_deliveries SET locked_until = ${lockedUntil} WHERE ${claimable} RETURNING id`.pipe(
                  Effect.flatMap(idRows)
                ),
                (taken) =>
                  taken.length === 0 ?
                    Effect.succeed([]) :
                    sql`SELECT ${claimedColumns("d")}, e.url, e.secret, e.failing_since AS endpoint_failing_since
                    FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
                    WHERE ${sql.in("d.id", taken.map((r) => r.id))}`
              )
          }).pipe(Effect.flatMap(claimedRows))
          const byId = new Map(rows.map((r) => [r.id, r]))
          return ids.flatMap((id) => {
            const r = byId.get(id)
            return r === undefined ? [] : [{
              id: r.id,
              endpoint_id: r.endpoint_id,
              run_id: r.run_id,
              target: r.target,
              organization_id: r.organization_id,
              url: r.target?.url ?? r.url ?? "",
              sealed_secret: r.secret,
              message_id: r.message_id,
              event_type: r.event_type,
              payload: r.payload,
              attempt_count: r.attempt_count,
              created_at: r.created_at,
              endpoint_failing: r.endpoint_failing_since !== null
            }]
          })
        }).pipe(StorageBoundary.orDie),
      // One statement for the whole batch: the rows' values as one JSON parameter (no parameter limit),
      // each attempt appended to the log where it is stored (no read first).
      recordAttempts: (attempts) => {
        if (attempts.length === 0) return Effect.void
        const values = Columns.jsonParam(attempts.map(({ attempt, id, outcome }) => ({
          id,
          entry: attempt,
          status: outcome.status,
          next_attempt_at: outcome.status === "pending" ? outcome.next_attempt_at : null,
          delivered_at: outcome.status === "delivered" ? outcome.at : null
        })))
        return sql.onDialectOrElse({
          pg: () =>
            sql`UPDATE webhook_deliveries d SET
                attempts = d.attempts || jsonb_build_array(v.entry),
                attempt_count = d.attempt_count + 1,
                status = v.status,
                next_attempt_at = v.next_attempt_at,
                delivered_at = v.delivered_at,
                locked_until = NULL
              FROM jsonb_to_recordset(${values}::jsonb)
                AS v(id integer, entry jsonb, status text, next_attempt_at timestamptz, delivered_at timestamptz)
              WHERE d.id = v.id`,
          orElse: () =>
            sql`UPDATE webhook_deliveries SET
                attempts = json_insert(attempts, '$[#]', json(v.entry)),
                attempt_count = attempt_count + 1,
                status = v.status,
                next_attempt_at = v.next_attempt_at,
                delivered_at = v.delivered_at,
                locked_until = NULL
              FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.entry') AS entry,
                           json_extract(value, '$.status') AS status, json_extract(value, '$.next_attempt_at') AS next_attempt_at,
                           json_extract(value, '$.delivered_at') AS delivered_at
                    FROM json_each(${values})) AS v
              WHERE webhook_deliveries.id = v.id`
        }).pipe(Effect.asVoid, StorageBoundary.orDie)
      },
      markHealthy: (id) =>
        sql`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${id}`.pipe(Effect.asVoid, StorageBoundary.orDie),
      markFailing: (id, now) =>
        sql`UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ${now}) WHERE id = ${id} RETURNING failing_since`.pipe(
          Effect.flatMap((rows) => rows.length === 0 ? Effect.succeed({ failing_since: now }) : failingRow(rows)),
          Effect.map((row) => row.failing_since),
          StorageBoundary.orDie
        ),
      deliveries: (organizationId, endpointId, { limit, offset }) =>
        Effect.all({
          deliveries: sql`SELECT * FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND organization_id = ${organizationId}
                          ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}`.pipe(
            Effect.flatMap(deliveryRows),
            Effect.map((rows) => rows.map(toDelivery))
          ),
          total: sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM webhook_deliveries
                     WHERE endpoint_id = ${endpointId} AND organization_id = ${organizationId}`.pipe(
            Effect.flatMap(count),
            Effect.map((r) => r.n)
          )
        }).pipe(StorageBoundary.orDie),
      resend: (organizationId, endpointId, id, now) =>
        Effect.gen(function*() {
          const updated = yield* sql`UPDATE webhook_deliveries
            SET status = 'pending', next_attempt_at = ${now}, locked_until = NULL, delivered_at = NULL
            WHERE id = ${id} AND endpoint_id = ${endpointId} AND organization_id = ${organizationId} RETURNING id`
          if (updated.length === 0) return Option.none()
          return yield* findDelivery(organizationId, endpointId, id)
        }).pipe(StorageBoundary.orDie)
    })
  })
)
