import { DefinitionId, OrganizationId, WorkflowId } from "@agentline/api/Ids"
import { VersionStatus, WorkflowStatus } from "@agentline/api/workflows/Workflow"
import {
  type TriggerConflict,
  type VersionContent,
  WorkflowsRepo
} from "@agentline/core/workflows/WorkflowsRepo"
import { SqlClient, type Statement } from "@effect/sql"
import { Data, Effect, Either, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

class TriggerTaken extends Data.TaggedError("TriggerTaken")<{ readonly trigger_path: string }> {}

/** A `workflows` row joined with its current version (`workflow_definitions`). */
const WorkflowRow = Schema.Struct({
  id: Columns.Id(WorkflowId),
  organization_id: Columns.Id(OrganizationId),
  name: Schema.String,
  status: WorkflowStatus,
  created_at: Columns.Ts,
  workflow_definition: Columns.JsonObject,
  current_definition_id: Schema.NullOr(Columns.Id(DefinitionId)),
  template_context_variables: Schema.NullOr(Columns.JsonObject),
  call_disposition_codes: Schema.NullOr(Columns.JsonObject),
  total_runs: Columns.Int,
  workflow_configurations: Schema.NullOr(Columns.JsonObject),
  version_number: Schema.NullOr(Columns.Int),
  version_status: Schema.NullOr(Schema.String),
  workflow_uuid: Schema.String
})
const firstWorkflow = Columns.decodeFirst(WorkflowRow)

/** A `workflow_definitions` row: one immutable version. */
const VersionRow = Schema.Struct({
  id: Columns.Id(DefinitionId),
  version_number: Columns.Int,
  status: VersionStatus,
  created_at: Columns.Ts,
  workflow_definition: Columns.JsonObject,
  template_context_variables: Schema.NullOr(Columns.JsonObject),
  workflow_configurations: Schema.NullOr(Columns.JsonObject)
})
const versions = Columns.decodeRows(VersionRow)

/** A `workflows` row as listed. */
const ListItemRow = Schema.Struct({
  id: Columns.Id(WorkflowId),
  name: Schema.String,
  status: WorkflowStatus,
  created_at: Columns.Ts,
  total_runs: Columns.Int,
  workflow_uuid: Schema.String
})
const listItems = Columns.decodeRows(ListItemRow)

const singleId = Columns.decodeSingle(Columns.IdRow)
const triggerOwners = Columns.decodeRows(Schema.Struct({ trigger_path: Schema.String, workflow_id: Columns.Int }))
const maxVersion = Columns.decodeSingle(Schema.Struct({ v: Schema.NullOr(Columns.Int) }))
const DispositionCodes = Schema.Struct({ disposition_codes: Schema.optional(Schema.Array(Schema.String)) })
const firstDispositionCodes = Columns.decodeFirst(Schema.Struct({ call_disposition_codes: Schema.NullOr(Columns.Json(DispositionCodes)) }))

export const layer = Layer.effect(
  WorkflowsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const selectWorkflow = sql`SELECT w.*, d.workflow_definition, d.template_context_variables, d.workflow_configurations,
      d.version_number, d.status AS version_status
      FROM workflows w LEFT JOIN workflow_definitions d ON d.id = w.current_definition_id`

    const findOne = (condition: Statement.Fragment) => sql`${selectWorkflow} WHERE ${condition}`.pipe(Effect.flatMap(firstWorkflow))

    const insertVersion = (workflowId: number, versionNumber: number, content: VersionContent, now: string) =>
      sql`INSERT INTO workflow_definitions
          (workflow_id, version_number, status, workflow_definition, template_context_variables, workflow_configurations, created_at)
          VALUES (${workflowId}, ${versionNumber}, 'published', ${Columns.jsonParam(content.workflow_definition)},
                  ${Columns.jsonParam(content.template_context_variables)}, ${Columns.jsonParam(content.workflow_configurations)}, ${now})
          RETURNING id`.pipe(
        Effect.flatMap(singleId),
        Effect.flatMap((row) => sql`UPDATE workflows SET current_definition_id = ${row.id}, updated_at = ${now} WHERE id = ${workflowId}`)
      )

    /** Active for the paths in the definition, archived for the agent's others; fails when another agent owns one. */
    const reserveTriggers = (organizationId: number, workflowId: number, paths: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        for (const path of paths) {
          yield* sql`INSERT INTO agent_triggers (trigger_path, workflow_id, organization_id, state)
                     VALUES (${path}, ${workflowId}, ${organizationId}, 'active') ON CONFLICT (trigger_path) DO NOTHING`
        }
        if (paths.length > 0) {
          const owners = yield* sql`SELECT trigger_path, workflow_id FROM agent_triggers WHERE ${sql.in("trigger_path", paths)}`
            .pipe(Effect.flatMap(triggerOwners))
          const taken = owners.find((o) => o.workflow_id !== workflowId)
          if (taken) return yield* new TriggerTaken({ trigger_path: taken.trigger_path })
          yield* sql`UPDATE agent_triggers SET state = 'active' WHERE workflow_id = ${workflowId} AND ${sql.in("trigger_path", paths)}`
          yield* sql`UPDATE agent_triggers SET state = 'archived' WHERE workflow_id = ${workflowId} AND NOT ${sql.in("trigger_path", paths)}`
        } else {
          yield* sql`UPDATE agent_triggers SET state = 'archived' WHERE workflow_id = ${workflowId}`
        }
      })

    const conflictOrDie = <A, R>(effect: Effect.Effect<A, TriggerTaken | unknown, R>) =>
      effect.pipe(
        Effect.map(Either.right),
        Effect.catchIf(
          (e): e is TriggerTaken => e instanceof TriggerTaken,
          (e) => Effect.succeed(Either.left<TriggerConflict>({ _tag: "TriggerConflict", trigger_path: e.trigger_path }))
        ),
        StorageBoundary.orDie
      ) as Effect.Effect<Either.Either<A, TriggerConflict>, never, R>

    return WorkflowsRepo.of({
      insert: (input) =>
        conflictOrDie(sql.withTransaction(Effect.gen(function*() {
          const { id } = yield* sql`INSERT INTO workflows (organization_id, workflow_uuid, name, status, created_at, updated_at)
            VALUES (${input.organization_id}, ${input.workflow_uuid}, ${input.name}, 'active', ${input.now}, ${input.now})
            RETURNING id`.pipe(Effect.flatMap(singleId))
          yield* insertVersion(id, 1, input.content, input.now)
          yield* reserveTriggers(input.organization_id, id, input.content.trigger_paths)
          return Option.getOrThrow(yield* findOne(sql`w.id = ${id}`))
        }))),
      list: (organizationId, statuses) =>
        sql`SELECT * FROM workflows WHERE organization_id = ${organizationId} AND ${sql.in("status", statuses)} ORDER BY id DESC`
          .pipe(Effect.flatMap(listItems), StorageBoundary.orDie),
      find: (organizationId, id) => findOne(sql`w.id = ${id} AND w.organization_id = ${organizationId}`).pipe(StorageBoundary.orDie),
      findByUuid: (uuid) => findOne(sql`w.workflow_uuid = ${uuid}`).pipe(StorageBoundary.orDie),
      findByTriggerPath: (path) =>
        findOne(sql`w.id = (SELECT workflow_id FROM agent_triggers WHERE trigger_path = ${path} AND state = 'active')`)
          .pipe(StorageBoundary.orDie),
      update: (input) =>
        conflictOrDie(sql.withTransaction(Effect.gen(function*() {
          const existing = yield* findOne(sql`w.id = ${input.id} AND w.organization_id = ${input.organization_id}`)
          if (Option.isNone(existing)) return Option.none()
          if (input.name !== undefined) {
            yield* sql`UPDATE workflows SET name = ${input.name}, updated_at = ${input.now} WHERE id = ${input.id}`
          }
          if (input.content !== undefined) {
            const max = yield* sql`SELECT CAST(MAX(version_number) AS INTEGER) AS v FROM workflow_definitions
              WHERE workflow_id = ${input.id}`.pipe(Effect.flatMap(maxVersion))
            yield* sql`UPDATE workflow_definitions SET status = 'archived' WHERE workflow_id = ${input.id}`
            yield* insertVersion(input.id, (max.v ?? 0) + 1, input.content, input.now)
            yield* reserveTriggers(input.organization_id, input.id, input.content.trigger_paths)
          }
          return yield* findOne(sql`w.id = ${input.id}`)
        }))),
      setStatus: (organizationId, id, status: WorkflowStatus, now) =>
        sql`UPDATE workflows SET status = ${status}, updated_at = ${now} WHERE id = ${id} AND organization_id = ${organizationId}`
          .pipe(Effect.zipRight(findOne(sql`w.id = ${id} AND w.organization_id = ${organizationId}`)), StorageBoundary.orDie),
      versions: (organizationId, id) =>
        sql`SELECT d.* FROM workflow_definitions d JOIN workflows w ON w.id = d.workflow_id
            WHERE d.workflow_id = ${id} AND w.organization_id = ${organizationId} ORDER BY d.version_number DESC`
          .pipe(Effect.flatMap(versions), StorageBoundary.orDie),
      addDispositionCodes: (id, codes) =>
        sql.withTransaction(Effect.gen(function*() {
          const row = yield* sql`SELECT call_disposition_codes FROM workflows WHERE id = ${id}`.pipe(Effect.flatMap(firstDispositionCodes))
          if (Option.isNone(row)) return
          const current = row.value.call_disposition_codes
          const merged = [...new Set([...(current?.disposition_codes ?? []), ...codes])].sort()
          if (merged.length === (current?.disposition_codes ?? []).length) return
          yield* sql`UPDATE workflows SET call_disposition_codes = ${Columns.jsonParam({ disposition_codes: merged })}
                     WHERE id = ${id}`
        })).pipe(StorageBoundary.orDie)
    })
  })
)
