import type { StoredRun } from "@agentline/core/runs/Run"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as Columns from "../Columns.js"

export const toRun = (row: any): StoredRun => ({
  id: Columns.int(row.id),
  organization_id: Columns.int(row.organization_id),
  workflow_id: Columns.int(row.workflow_id),
  campaign_id: Columns.intOrNull(row.campaign_id),
  definition_id: Columns.intOrNull(row.definition_id),
  name: row.name,
  mode: row.mode,
  call_type: row.call_type,
  is_completed: Columns.bool(row.is_completed),
  initial_context: Columns.jsonOrNull(row.initial_context),
  gathered_context: Columns.jsonOrNull(row.gathered_context),
  cost_info: Columns.jsonOrNull(row.cost_info),
  usage_info: Columns.jsonOrNull(row.usage_info),
  logs: Columns.jsonOrNull(row.logs),
  annotations: Columns.jsonOrNull(row.annotations),
  artifacts: {
    transcript: row.transcript_key ?? null,
    recording: row.recording_key ?? null,
    user_recording: row.user_recording_key ?? null,
    bot_recording: row.bot_recording_key ?? null
  },
  created_at: Columns.ts(row.created_at),
  updated_at: Columns.ts(row.updated_at)
})

export const layer = Layer.effect(
  RunsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const first = (rows: ReadonlyArray<any>) => Option.map(Option.fromNullable(rows[0]), toRun)

    return RunsRepo.of({
      insert: (run) =>
        sql.withTransaction(Effect.gen(function*() {
          const rows = yield* sql`INSERT INTO workflow_runs
            (organization_id, workflow_id, campaign_id, definition_id, name, mode, call_type, initial_context, gathered_context, logs, created_at, updated_at)
            VALUES (${run.organization_id}, ${run.workflow_id}, ${run.campaign_id}, ${run.definition_id}, ${run.name}, ${run.mode},
                    ${run.call_type}, ${Columns.jsonParam(run.initial_context)}, ${Columns.jsonParam(run.gathered_context)},
                    ${Columns.jsonParam(run.logs)}, ${run.now}, ${run.now})
            RETURNING *`
          yield* sql`UPDATE workflows SET total_runs = total_runs + 1 WHERE id = ${run.workflow_id}`
          return toRun(rows[0])
        })).pipe(Effect.orDie),
      list: (organizationId, filter, page) => {
        const condition = "workflowId" in filter
          ? sql`organization_id = ${organizationId} AND workflow_id = ${filter.workflowId}`
          : sql`organization_id = ${organizationId} AND campaign_id = ${filter.campaignId}`
        return Effect.all({
          runs: sql`SELECT * FROM workflow_runs WHERE ${condition} ORDER BY id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
          total: sql<{ n: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM workflow_runs WHERE ${condition}`
        }).pipe(
          Effect.map(({ runs, total }) => ({ runs: runs.map(toRun), total: Columns.int(total[0]!.n) })),
          Effect.orDie
        )
      },
      find: (organizationId, id) =>
        sql`SELECT * FROM workflow_runs WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(Effect.map(first), Effect.orDie),
      findById: (id) => sql`SELECT * FROM workflow_runs WHERE id = ${id}`.pipe(Effect.map(first), Effect.orDie),
      update: (id, patch, now) => {
        const set: Record<string, unknown> = { updated_at: now }
        if (patch.is_completed !== undefined) set.is_completed = Columns.boolParam(patch.is_completed)
        for (const key of ["gathered_context", "cost_info", "usage_info", "logs", "initial_context", "annotations"] as const) {
          if (patch[key] !== undefined) set[key] = Columns.jsonParam(patch[key])
        }
        for (const [artifact, key] of Object.entries(patch.artifacts ?? {})) set[`${artifact}_key`] = key
        return sql`UPDATE workflow_runs SET ${sql.update(set)} WHERE id = ${id} RETURNING *`.pipe(Effect.map(first), Effect.orDie)
      }
    })
  })
)
