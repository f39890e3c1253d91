import { CampaignId, DefinitionId, OrganizationId, RunId, WorkflowId } from "@agentline/api/Ids"
import { type StoredRun } from "@agentline/core/runs/Run"
import { CallType } from "@agentline/api/runs/Run"
import { type NewRun, RunsRepo } from "@agentline/core/runs/RunsRepo"
import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

/** A `workflow_runs` row: artifacts are columns of blob keys (`transcript_key`, ...). */
const RunRow = Schema.Struct({
  id: Columns.Id(RunId),
  organization_id: Columns.Id(OrganizationId),
  workflow_id: Columns.Id(WorkflowId),
  campaign_id: Schema.NullOr(Columns.Id(CampaignId)),
  definition_id: Schema.NullOr(Columns.Id(DefinitionId)),
  name: Schema.String,
  mode: Schema.String,
  call_type: CallType,
  is_completed: Columns.Bool,
  initial_context: Schema.NullOr(Columns.JsonObject),
  gathered_context: Schema.NullOr(Columns.JsonObject),
  cost_info: Schema.NullOr(Columns.JsonObject),
  usage_info: Schema.NullOr(Columns.JsonObject),
  logs: Schema.NullOr(Columns.JsonObject),
  annotations: Schema.NullOr(Columns.JsonObject),
  transcript_key: Schema.NullOr(Schema.String),
  recording_key: Schema.NullOr(Schema.String),
  user_recording_key: Schema.NullOr(Schema.String),
  bot_recording_key: Schema.NullOr(Schema.String),
  created_at: Columns.Ts,
  updated_at: Columns.Ts
})

const toRun = (
  { bot_recording_key, recording_key, transcript_key, user_recording_key, ...run }: typeof RunRow.Type
): StoredRun => ({
  ...run,
  artifacts: { transcript: transcript_key, recording: recording_key, user_recording: user_recording_key, bot_recording: bot_recording_key }
})
const decodeRuns = Columns.decodeRows(RunRow)
const runs = (rows: ReadonlyArray<unknown>) => Effect.map(decodeRuns(rows), (decoded) => decoded.map(toRun))
const first = (rows: ReadonlyArray<unknown>) => Effect.map(runs(rows), (decoded) => Option.fromNullable(decoded[0]))
const count = Columns.decodeSingle(Schema.Struct({ n: Columns.Int }))
const idRows = Columns.decodeRows(Columns.IdRow)

export const layer = Layer.effect(
  RunsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** `logs` with `entries` appended to its `telephony_status_callbacks`, the rest kept. */
    const appendedLogs = (entries: ReadonlyArray<Record<string, unknown>>) =>
      sql.onDialectOrElse({
        pg: () =>
          sql`jsonb_set(COALESCE(logs, '{}'::jsonb), '{telephony_status_callbacks}',
                COALESCE(logs->'telephony_status_callbacks', '[]'::jsonb) || ${JSON.stringify(entries)}::jsonb)`,
        // The stored entries, then the new ones, in their order (json_each keys are array indexes).
        orElse: () =>
          sql`json_set(COALESCE(logs, '{}'), '$.telephony_status_callbacks', (
                SELECT json_group_array(json(value)) FROM (
                  SELECT value, 0 AS part, key FROM json_each(COALESCE(json_extract(logs, '$.telephony_status_callbacks'), '[]'))
                  UNION ALL
                  SELECT value, 1 AS part, key FROM json_each(${JSON.stringify(entries)})
                  ORDER BY part, key)))`
      })

    /**
     * `defaults`, then the stored object, then `merge`, by top-level key (the later wins). PostgreSQL's
     * `||` and SQLite's `json_patch` agree on top-level keys; nested objects are replaced on PostgreSQL
     * and merged on SQLite, so callers merge flat values.
     */
    const mergedJson = (column: string, defaults: Record<string, unknown>, merge: Record<string, unknown>) =>
      sql.onDialectOrElse({
        pg: () => sql`(${JSON.stringify(defaults)}::jsonb || COALESCE(${sql(column)}, '{}'::jsonb) || ${JSON.stringify(merge)}::jsonb)`,
        orElse: () => sql`json_patch(json_patch(${JSON.stringify(defaults)}, COALESCE(${sql(column)}, '{}')), ${JSON.stringify(merge)})`
      })

    /** Takes the runs' post-call work (completed, not taken yet, and unless `force` their media session over). */
    const claimPostCalls = (ids: ReadonlyArray<number>, now: string, force: boolean) =>
      ids.length === 0 ? Effect.succeed([]) : sql`UPDATE workflow_runs SET post_call_at = ${now}
          WHERE ${sql.in("id", ids)} AND post_call_at IS NULL AND is_completed = ${Columns.boolParam(true)}
            ${force ? sql`` : sql`AND (media_started_at IS NULL OR media_ended_at IS NOT NULL)`} RETURNING *`.pipe(
          Effect.flatMap(runs),
          StorageBoundary.orDie
        )

    /**
     * One statement for the runs and one per agent for its `total_runs`. The returned rows are built from
     * the inputs: ids come back in insertion order (both databases number a multi-row insert's rows in
     * order), so no row is read back and decoded.
     */
    const insertAll = (all: ReadonlyArray<NewRun>) =>
      all.length === 0 ? Effect.succeed([]) : sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql`INSERT INTO workflow_runs ${
          sql.insert(all.map((run) => ({
            organization_id: run.organization_id,
            workflow_id: run.workflow_id,
            campaign_id: run.campaign_id,
            definition_id: run.definition_id,
            name: run.name,
            mode: run.mode,
            call_type: run.call_type,
            initial_context: Columns.jsonParam(run.initial_context),
            gathered_context: Columns.jsonParam(run.gathered_context),
            logs: Columns.jsonParam(run.logs),
            created_at: run.now,
            updated_at: run.now
          })))
        } RETURNING id`.pipe(Effect.flatMap(idRows))
        const perAgent = new Map<number, number>()
        for (const run of all) perAgent.set(run.workflow_id, (perAgent.get(run.workflow_id) ?? 0) + 1)
        for (const [workflowId, n] of perAgent) yield* sql`UPDATE workflows SET total_runs = total_runs + ${n} WHERE id = ${workflowId}`
        const ids = rows.map((r) => r.id).sort((a, b) => a - b)
        return all.map(({ now, ...run }, i): StoredRun => ({
          ...run,
          id: RunId.make(ids[i]!),
          is_completed: false,
          cost_info: null,
          usage_info: null,
          annotations: null,
          artifacts: { transcript: null, recording: null, user_recording: null, bot_recording: null },
          created_at: now,
          updated_at: now
        }))
      })).pipe(StorageBoundary.orDie)

    return RunsRepo.of({
      insert: (run) => Effect.map(insertAll([run]), (inserted) => inserted[0]!),
      insertAll,
      list: (organizationId, filter, page) => {
        const condition = "workflowId" in filter
          ? sql`organization_id = ${organizationId} AND workflow_id = ${filter.workflowId}`
          : sql`organization_id = ${organizationId} AND campaign_id = ${filter.campaignId}`
        return Effect.all({
          runs: sql`SELECT * FROM workflow_runs WHERE ${condition} ORDER BY id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
          total: sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM workflow_runs WHERE ${condition}`
        }).pipe(
          Effect.flatMap((rows) => Effect.all({ runs: runs(rows.runs), total: Effect.map(count(rows.total), (row) => row.n) })),
          StorageBoundary.orDie
        )
      },
      find: (organizationId, id) =>
        sql`SELECT * FROM workflow_runs WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(Effect.flatMap(first), StorageBoundary.orDie),
      findById: (id) => sql`SELECT * FROM workflow_runs WHERE id = ${id}`.pipe(Effect.flatMap(first), StorageBoundary.orDie),
      update: (id, patch, now) => {
        const set: Record<string, unknown> = { updated_at: now }
        if (patch.is_completed !== undefined) set.is_completed = Columns.boolParam(patch.is_completed)
        for (const key of ["gathered_context", "cost_info", "usage_info", "logs", "initial_context", "annotations"] as const) {
          if (patch[key] !== undefined) set[key] = Columns.jsonParam(patch[key])
        }
        for (const [artifact, key] of Object.entries(patch.artifacts ?? {})) set[`${artifact}_key`] = key
        const appending = patch.statusCallbacks !== undefined && patch.statusCallbacks.length > 0
        const appended = !appending
          ? sql``
          : sql`, logs = ${appendedLogs(patch.statusCallbacks)}`
        const merged = (["gathered_context", "usage_info", "cost_info", "logs"] as const).flatMap((column) => {
          const merge = patch.merge?.[column]
          const defaults = patch.defaults?.[column]
          if (merge === undefined && defaults === undefined) return []
          // Never both in one statement: a caller appends status callbacks or merges logs (see RunPatch).
          if (column === "logs" && appending) return []
          return [sql`, ${sql(column)} = ${mergedJson(column, defaults ?? {}, merge ?? {})}`]
        })
        return sql`UPDATE workflow_runs SET ${sql.update(set)}${appended}${sql.join("", false, "")(merged)} WHERE id = ${id} RETURNING *`.pipe(
          Effect.flatMap(first),
          StorageBoundary.orDie
        )
      },
      appendStatusCallbacks: (id, entries) =>
        entries.length === 0
          ? Effect.void
          : sql`UPDATE workflow_runs SET logs = ${appendedLogs(entries)} WHERE id = ${id}`.pipe(Effect.asVoid, StorageBoundary.orDie),
      markMedia: (id, edge, now) =>
        (edge === "started"
          ? sql`UPDATE workflow_runs SET media_started_at = COALESCE(media_started_at, ${now}) WHERE id = ${id}`
          : sql`UPDATE workflow_runs SET media_ended_at = ${now} WHERE id = ${id}`).pipe(Effect.asVoid, StorageBoundary.orDie),
      claimPostCalls: (ids, now) => claimPostCalls(ids, now, false),
      completeAll: (patches, now) => {
        if (patches.length === 0) return Effect.succeed([])
        /** Each run's own value of `column` (`CASE id WHEN … END`), the stored one for runs without. */
        const each = (column: string, value: (patch: typeof patches[number]) => Statement.Fragment | undefined) => {
          const cases = patches.flatMap((p) => {
            const v = value(p)
            return v === undefined ? [] : [sql`WHEN CAST(${p.id} AS INTEGER) THEN ${v}`]
          })
          return cases.length === 0 ? [] : [sql`, ${sql(column)} = CASE id ${sql.join(" ", false)(cases)} ELSE ${sql(column)} END`]
        }
        const sets = [
          ...each("logs", (p) => (p.statusCallbacks !== undefined && p.statusCallbacks.length > 0 ? appendedLogs(p.statusCallbacks) : undefined)),
          ...(["gathered_context", "usage_info", "cost_info"] as const).flatMap((column) =>
            each(column, (p) => {
              const merge = p.merge?.[column]
              const defaults = p.defaults?.[column]
              return merge === undefined && defaults === undefined ? undefined : mergedJson(column, defaults ?? {}, merge ?? {})
            })
          )
        ]
        return sql`UPDATE workflow_runs SET updated_at = ${now}, is_completed = ${Columns.boolParam(true)}${sql.join("", false, "")(sets)}
            WHERE ${sql.in("id", patches.map((p) => p.id))} RETURNING id`.pipe(
          Effect.flatMap(idRows),
          Effect.map((rows) => rows.map((r) => r.id)),
          StorageBoundary.orDie
        )
      },
      claimPostCall: (id, now, force) => Effect.map(claimPostCalls([id], now, force), (taken) => Option.fromNullable(taken[0])),
      awaitingPostCall: (before, limit) =>
        sql`SELECT id FROM workflow_runs WHERE post_call_at IS NULL AND is_completed = ${Columns.boolParam(true)} AND updated_at < ${before}
            ORDER BY id LIMIT ${limit}`.pipe(
          Effect.flatMap(Columns.decodeRows(Columns.IdRow)),
          Effect.map((rows) => rows.map((r) => r.id)),
          StorageBoundary.orDie
        )
    })
  })
)
