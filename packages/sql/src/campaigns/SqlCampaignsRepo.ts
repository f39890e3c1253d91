import { CampaignId, OrganizationId, TelephonyConfigurationId, WorkflowId } from "@agentline/api/Ids"
import { LogEntry } from "@agentline/api/campaigns/CampaignLog"
import { CampaignsRepo } from "@agentline/core/campaigns/CampaignsRepo"
import { CircuitBreakerConfig, RetryConfig, ScheduleConfig } from "@agentline/api/campaigns/CampaignSettings"
import { stateChange } from "@agentline/core/campaigns/CampaignState"
import { CampaignState } from "@agentline/api/campaigns/Campaign"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

/** A `campaigns` row joined with its agent's and configuration's names, as the API shows it. */
const CampaignRow = Schema.Struct({
  id: Columns.Id(CampaignId),
  organization_id: Columns.Id(OrganizationId),
  name: Schema.String,
  workflow_id: Columns.Id(WorkflowId),
  workflow_name: Schema.String,
  state: CampaignState,
  source_type: Schema.String,
  source_id: Schema.String,
  total_rows: Schema.NullOr(Columns.Int),
  processed_rows: Columns.Int,
  failed_rows: Columns.Int,
  skipped_rows: Columns.Int,
  created_at: Columns.Ts,
  started_at: Schema.NullOr(Columns.Ts),
  completed_at: Schema.NullOr(Columns.Ts),
  retry_config: Columns.Json(Schema.encodedSchema(RetryConfig)),
  max_concurrency: Schema.NullOr(Columns.Int),
  schedule_config: Schema.NullOr(Columns.Json(Schema.encodedSchema(ScheduleConfig))),
  circuit_breaker: Columns.Json(Schema.encodedSchema(CircuitBreakerConfig)),
  executed_count: Columns.Int,
  total_queued_count: Columns.Int,
  parent_campaign_id: Schema.NullOr(Columns.Id(CampaignId)),
  redialed_campaign_id: Schema.NullOr(Columns.Id(CampaignId)),
  telephony_configuration_id: Schema.NullOr(Columns.Id(TelephonyConfigurationId)),
  telephony_configuration_name: Schema.NullOr(Schema.String),
  logs: Columns.Json(Schema.Array(LogEntry))
})
const decodeCampaigns = Columns.decodeRows(CampaignRow)
const Count = Schema.Struct({ n: Columns.Int })
const decodeCount = Columns.decodeRows(Count)
const decodeIds = Columns.decodeRows(Schema.Struct({ id: Columns.Id(CampaignId) }))
const decodeRowNumbers = Columns.decodeRows(Schema.Struct({ row_number: Columns.Int }))

export const layer = Layer.effect(
  CampaignsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

    const select = sql`SELECT c.*, w.name AS workflow_name, t.name AS telephony_configuration_name
      FROM campaigns c JOIN workflows w ON w.id = c.workflow_id
      LEFT JOIN telephony_configurations t ON t.id = c.telephony_configuration_id`

    const findOne = (campaignId: CampaignId, organizationId?: OrganizationId) =>
      sql`${select} WHERE c.id = ${campaignId} ${organizationId === undefined ? sql`` : sql`AND c.organization_id = ${organizationId}`}`
        .pipe(Effect.flatMap(decodeCampaigns), Effect.map((rows) => Option.fromNullable(rows[0])))

    const appendLog = (entry: LogEntry) =>
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
          Effect.flatMap(decodeIds),
          Effect.flatMap(([row]) => findOne(row!.id, c.organization_id)),
          Effect.map(Option.getOrThrow),
          StorageBoundary.orDie
        ),
      insertContacts: ({ campaignId, now, organizationId, rows }) =>
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
          } ON CONFLICT (campaign_id, phone_number) DO NOTHING RETURNING row_number`.pipe(Effect.flatMap(decodeRowNumbers))
          const done = new Set(inserted.map((r) => r.row_number))
          return rows.filter((r) => !done.has(r.row_number)).map((r) => r.row_number)
        }).pipe(StorageBoundary.orDie),
      discard: ({ campaignId, organizationId }) =>
        sql.withTransaction(Effect.gen(function*() {
          const unfinished = yield* sql`SELECT id FROM campaigns
            WHERE id = ${campaignId} AND organization_id = ${organizationId} AND total_rows IS NULL`
          if (unfinished.length === 0) return
          yield* sql`DELETE FROM contacts WHERE campaign_id = ${campaignId}`
          yield* sql`DELETE FROM campaigns WHERE id = ${campaignId}`
        })).pipe(StorageBoundary.orDie),
      setImported: ({ campaignId, contacts }) =>
        sql`UPDATE campaigns SET total_rows = ${contacts}, total_queued_count = ${contacts} WHERE id = ${campaignId}`
          .pipe(Effect.asVoid, StorageBoundary.orDie),
      find: ({ campaignId, organizationId }) => findOne(campaignId, organizationId).pipe(StorageBoundary.orDie),
      list: ({ limit, offset, organizationId }) =>
        Effect.all({
          campaigns: sql`${select} WHERE c.organization_id = ${organizationId} ORDER BY c.id DESC LIMIT ${limit} OFFSET ${offset}`
            .pipe(Effect.flatMap(decodeCampaigns)),
          total: sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM campaigns WHERE organization_id = ${organizationId}`
            .pipe(Effect.flatMap(decodeCount), Effect.map((rows) => rows[0]!.n))
        }).pipe(StorageBoundary.orDie),
      updateSettings: ({ allowedStates, campaignId, now, organizationId, update }) =>
        Effect.gen(function*() {
          const set: Record<string, unknown> = { updated_at: now }
          if (update.name !== undefined) set.name = update.name
          if (update.retry_config !== undefined) set.retry_config = Columns.jsonParam(update.retry_config)
          if (update.max_concurrency !== undefined) set.max_concurrency = update.max_concurrency
          if (update.schedule_config !== undefined) set.schedule_config = Columns.jsonParam(update.schedule_config)
          if (update.circuit_breaker !== undefined) set.circuit_breaker = Columns.jsonParam(update.circuit_breaker)
          const rows = yield* sql`UPDATE campaigns SET ${sql.update(set)}
            WHERE id = ${campaignId} AND organization_id = ${organizationId} AND ${sql.in("state", allowedStates)} RETURNING id`
          return rows.length === 0 ? Option.none() : yield* findOne(campaignId, organizationId)
        }).pipe(StorageBoundary.orDie),
      transition: ({ action, campaignId, expected, log, organizationId }) =>
        Effect.gen(function*() {
          const change = stateChange(action)
          const from = expected === undefined ? change.from : change.from.filter((state) => state === expected)
          if (from.length === 0) return Option.none()
          const at = log.ts
          const rows = yield* sql`UPDATE campaigns SET state = ${change.to}, updated_at = ${at}, ${appendLog(log)}
            ${change.stamps === "started_at" ? sql`, started_at = COALESCE(started_at, ${at})` : sql``}
            ${change.stamps === "completed_at" ? sql`, completed_at = ${at}` : sql``}
            ${change.stamps === "breaker_reset_at" ? sql`, breaker_reset_at = ${at}` : sql``}
            WHERE id = ${campaignId} AND ${sql.in("state", from)}
            ${organizationId === undefined ? sql`` : sql`AND organization_id = ${organizationId}`}
            ${
            change.whenSettled
              ? sql`AND NOT EXISTS (SELECT 1 FROM contacts WHERE campaign_id = ${campaignId} AND state IN ('queued', 'dialing'))`
              : sql``
          }
            RETURNING id`
          return rows.length === 0 ? Option.none() : yield* findOne(campaignId, organizationId)
        }).pipe(StorageBoundary.orDie),
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
        }).pipe(StorageBoundary.orDie)
    })
  })
)
