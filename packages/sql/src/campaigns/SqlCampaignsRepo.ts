import { CampaignsRepo, type StoredCampaign } from "@agentline/core/campaigns/CampaignsRepo"
import type { CampaignLogEntry } from "@agentline/core/dispatcher/DispatchRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as Columns from "../Columns.js"

const toCampaign = (row: any): StoredCampaign => ({
  id: Columns.int(row.id),
  organization_id: Columns.int(row.organization_id),
  name: row.name,
  workflow_id: Columns.int(row.workflow_id),
  workflow_name: row.workflow_name ?? "Unknown",
  state: row.state,
  source_type: row.source_type,
  source_id: row.source_id,
  total_rows: Columns.intOrNull(row.total_rows),
  processed_rows: Columns.int(row.processed_rows),
  failed_rows: Columns.int(row.failed_rows),
  created_at: Columns.ts(row.created_at),
  started_at: Columns.tsOrNull(row.started_at),
  completed_at: Columns.tsOrNull(row.completed_at),
  retry_config: Columns.json(row.retry_config),
  max_concurrency: Columns.intOrNull(row.max_concurrency),
  schedule_config: Columns.jsonOrNull(row.schedule_config),
  circuit_breaker: Columns.json(row.circuit_breaker),
  executed_count: Columns.int(row.executed_count),
  total_queued_count: Columns.int(row.total_queued_count),
  parent_campaign_id: Columns.intOrNull(row.parent_campaign_id),
  redialed_campaign_id: Columns.intOrNull(row.redialed_campaign_id),
  telephony_configuration_id: Columns.intOrNull(row.telephony_configuration_id),
  telephony_configuration_name: row.telephony_configuration_name ?? null,
  logs: Columns.json(row.logs)
})

export const layer = Layer.effect(
  CampaignsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

    const select = sql`SELECT c.*, w.name AS workflow_name, t.name AS telephony_configuration_name
      FROM campaigns c JOIN workflows w ON w.id = c.workflow_id
      LEFT JOIN telephony_configurations t ON t.id = c.telephony_configuration_id`

    const findOne = (organizationId: number, id: number) =>
      sql`${select} WHERE c.id = ${id} AND c.organization_id = ${organizationId}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toCampaign))
      )

    const appendLog = (entry: CampaignLogEntry) =>
      isPg
        ? sql`logs = logs || jsonb_build_array(${JSON.stringify(entry)}::jsonb)`
        : sql`logs = json_insert(logs, '$[#]', json(${JSON.stringify(entry)}))`

    return CampaignsRepo.of({
      insert: (c) =>
        sql`INSERT INTO campaigns (organization_id, workflow_id, telephony_configuration_id, name, state, source_type, source_id,
              retry_config, max_concurrency, schedule_config, circuit_breaker, parent_campaign_id, logs, created_at, updated_at)
            VALUES (${c.organization_id}, ${c.workflow_id}, ${c.telephony_configuration_id}, ${c.name}, 'draft', ${c.source_type},
              ${c.source_id}, ${Columns.jsonParam(c.retry_config)}, ${c.max_concurrency}, ${Columns.jsonParam(c.schedule_config)},
              ${Columns.jsonParam(c.circuit_breaker)}, ${c.parent_campaign_id}, ${Columns.jsonParam([c.log])}, ${c.now}, ${c.now})
            RETURNING id`.pipe(
          Effect.flatMap(([row]) => findOne(c.organization_id, Columns.int(row!.id))),
          Effect.map(Option.getOrThrow),
          Effect.orDie
        ),
      insertContacts: (campaignId, organizationId, rows, now) =>
        Effect.gen(function*() {
          if (rows.length === 0) return []
          const inserted = yield* sql`INSERT INTO contacts ${
            sql.insert(rows.map((r) => ({
              campaign_id: campaignId,
              organization_id: organizationId,
              row_number: r.row_number,
              phone_number: r.phone_number,
              timezone: r.timezone,
              initial_context: JSON.stringify(r.initial_context),
              state: "queued",
              updated_at: now
            })))
          } ON CONFLICT (campaign_id, phone_number) DO NOTHING RETURNING row_number`
          const done = new Set(inserted.map((r) => Columns.int(r.row_number)))
          return rows.filter((r) => !done.has(r.row_number)).map((r) => r.row_number)
        }).pipe(Effect.orDie),
      setImported: (campaignId, contacts) =>
        sql`UPDATE campaigns SET total_rows = ${contacts}, total_queued_count = ${contacts} WHERE id = ${campaignId}`
          .pipe(Effect.asVoid, Effect.orDie),
      find: (organizationId, id) => findOne(organizationId, id).pipe(Effect.orDie),
      list: (organizationId, page) =>
        Effect.all({
          rows: sql`${select} WHERE c.organization_id = ${organizationId} ORDER BY c.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
          total: sql<{ n: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM campaigns WHERE organization_id = ${organizationId}`
        }).pipe(
          Effect.map(({ rows, total }) => ({ campaigns: rows.map(toCampaign), total: Columns.int(total[0]!.n) })),
          Effect.orDie
        ),
      updateSettings: (organizationId, id, update, allowedStates, now) =>
        Effect.gen(function*() {
          const set: Record<string, unknown> = { updated_at: now }
          if (update.name !== undefined) set.name = update.name
          if (update.retry_config !== undefined) set.retry_config = Columns.jsonParam(update.retry_config)
          if (update.max_concurrency !== undefined) set.max_concurrency = update.max_concurrency
          if (update.schedule_config !== undefined) set.schedule_config = Columns.jsonParam(update.schedule_config)
          if (update.circuit_breaker !== undefined) set.circuit_breaker = Columns.jsonParam(update.circuit_breaker)
          const rows = yield* sql`UPDATE campaigns SET ${sql.update(set)}
            WHERE id = ${id} AND organization_id = ${organizationId} AND ${sql.in("state", allowedStates)} RETURNING id`
          return rows.length === 0 ? Option.none() : yield* findOne(organizationId, id)
        }).pipe(Effect.orDie),
      transition: (t) =>
        Effect.gen(function*() {
          const rows = yield* sql`UPDATE campaigns SET state = ${t.to}, updated_at = ${t.now}, ${appendLog(t.log)}
            ${t.markStarted ? sql`, started_at = COALESCE(started_at, ${t.now})` : sql``}
            ${t.resetBreaker ? sql`, breaker_reset_at = ${t.now}` : sql``}
            WHERE id = ${t.id} AND organization_id = ${t.organization_id} AND ${sql.in("state", t.from)} RETURNING id`
          return rows.length === 0 ? Option.none() : yield* findOne(t.organization_id, t.id)
        }).pipe(Effect.orDie),
      copyForRedial: ({ childId, now, outcomes, parentId }) =>
        Effect.gen(function*() {
          const linked = yield* sql`UPDATE campaigns SET redialed_campaign_id = ${childId}
                                    WHERE id = ${parentId} AND redialed_campaign_id IS NULL RETURNING id`
          if (linked.length === 0) return "AlreadyRedialed" as const
          const copied = yield* sql`INSERT INTO contacts
              (campaign_id, organization_id, row_number, phone_number, timezone, initial_context, state, updated_at)
            SELECT ${childId}, organization_id, row_number, phone_number, timezone, initial_context, 'queued', ${now}
            FROM contacts WHERE campaign_id = ${parentId} AND state = 'exhausted' AND ${sql.in("last_outcome", outcomes)}
            ORDER BY id RETURNING id`
          return copied.length
        }).pipe(Effect.orDie)
    })
  })
)
