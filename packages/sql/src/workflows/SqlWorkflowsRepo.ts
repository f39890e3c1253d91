import { DefinitionId, OrganizationId, WorkflowId } from "@agentline/api/Ids"
import { VersionStatus, type WorkflowVersion, WorkflowStatus } from "@agentline/api/workflows/Workflow"
import {
  type PublishOutcome,
  type TriggerConflict,
  type VersionChoice,
  type VersionContent,
  WorkflowsRepo
} from "@agentline/core/workflows/WorkflowsRepo"
import { SqlClient, type Statement } from "@effect/sql"
import { Data, Effect, Either, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

class TriggerTaken extends Data.TaggedError("TriggerTaken")<{ readonly trigger_path: string }> {}

/** A `workflows` row joined with one of its versions (`workflow_definitions`). */
const WorkflowRow = Schema.Struct({
  id: Columns.Id(WorkflowId),
  organization_id: Columns.Id(OrganizationId),
  name: Schema.String,
  status: WorkflowStatus,
  created_at: Columns.Ts,
  workflow_definition: Columns.JsonObject,
  current_definition_id: Schema.NullOr(Columns.Id(DefinitionId)),
  definition_id: Columns.Id(DefinitionId),
  template_context_variables: Schema.NullOr(Columns.JsonObject),
  call_disposition_codes: Schema.NullOr(Columns.JsonObject),
  total_runs: Columns.Int,
  workflow_configurations: Schema.NullOr(Columns.JsonObject),
  version_number: Schema.NullOr(Columns.Int),
  version_status: Schema.NullOr(Schema.String),
  workflow_uuid: Schema.String
})
const firstWorkflow = Columns.decodeFirst(WorkflowRow)

/** A `workflow_definitions` row: one version. */
const VersionRow = Schema.Struct({
  id: Columns.Id(DefinitionId),
  version_number: Columns.Int,
  status: VersionStatus,
  created_at: Columns.Ts,
  published_at: Schema.NullOr(Columns.Ts),
  workflow_definition: Columns.JsonObject,
  template_context_variables: Schema.NullOr(Columns.JsonObject),
  workflow_configurations: Schema.NullOr(Columns.JsonObject)
})
const versions = Columns.decodeRows(VersionRow)
const firstVersion = Columns.decodeFirst(VersionRow)

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
const claimedPaths = Columns.decodeRows(Schema.Struct({ trigger_paths: Schema.NullOr(Columns.Json(Schema.Array(Schema.String))) }))
const maxVersion = Columns.decodeSingle(Schema.Struct({ v: Schema.NullOr(Columns.Int) }))
const DispositionCodes = Schema.Struct({ disposition_codes: Schema.optional(Schema.Array(Schema.String)) })
const firstDispositionCodes = Columns.decodeFirst(Schema.Struct({ call_disposition_codes: Schema.NullOr(Columns.Json(DispositionCodes)) }))

export const layer = Layer.effect(
  WorkflowsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

    /** The agent with the version `version` names: the published one, or the draft when there is one. */
    const selectWorkflow = (version: VersionChoice) =>
      sql`SELECT w.*, d.id AS definition_id, d.workflow_definition, d.template_context_variables, d.workflow_configurations,
        d.version_number, d.status AS version_status
        FROM workflows w JOIN workflow_definitions d ON d.id = ${
        version === "published"
          ? sql`w.current_definition_id`
          : sql`COALESCE((SELECT x.id FROM workflow_definitions x WHERE x.workflow_id = w.id AND x.status = 'draft'), w.current_definition_id)`
      }`

    const findOne = (condition: Statement.Fragment, version: VersionChoice = "published") =>
      sql`${selectWorkflow(version)} WHERE ${condition}`.pipe(Effect.flatMap(firstWorkflow))

    /** Serializes the writers of one agent's versions (SQLite serializes every writer already). */
    const lockAgent = (organizationId: number, id: number) =>
      isPg
        ? sql`SELECT id FROM workflows WHERE id = ${id} AND organization_id = ${organizationId} FOR NO KEY UPDATE`
        : sql`SELECT id FROM workflows WHERE id = ${id} AND organization_id = ${organizationId}`

    const nextVersionNumber = (workflowId: number) =>
      sql`SELECT CAST(MAX(version_number) AS INTEGER) AS v FROM workflow_definitions WHERE workflow_id = ${workflowId}`.pipe(
        Effect.flatMap(maxVersion),
        Effect.map((max) => (max.v ?? 0) + 1)
      )

    const insertVersion = (
      workflowId: number,
      versionNumber: number,
      status: "draft" | "published",
      content: VersionContent,
      now: string
    ) =>
      sql`INSERT INTO workflow_definitions
          (workflow_id, version_number, status, workflow_definition, template_context_variables, workflow_configurations,
           trigger_paths, created_at, published_at)
          VALUES (${workflowId}, ${versionNumber}, ${status}, ${Columns.jsonParam(content.workflow_definition)},
                  ${Columns.jsonParam(content.template_context_variables)}, ${Columns.jsonParam(content.workflow_configurations)},
                  ${Columns.jsonParam(content.trigger_paths)}, ${now}, ${status === "published" ? now : null})
          RETURNING id`.pipe(Effect.flatMap(singleId))

    /**
     * The agent's trigger paths: active for `paths` and for those the versions left in force claim
     * (`keep`: the published version when a draft is saved, none when a draft is published), archived
     * for the rest; fails when another agent owns one of `paths`.
     */
    const reserveTriggers = (organizationId: number, workflowId: number, paths: ReadonlyArray<string>, keep: "published" | "none") =>
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
        }
        const kept = keep === "published"
          ? (yield* sql`SELECT trigger_paths FROM workflow_definitions WHERE workflow_id = ${workflowId} AND status = 'published'`
            .pipe(Effect.flatMap(claimedPaths))).flatMap((row) => row.trigger_paths ?? [])
          : []
        const active = [...new Set([...paths, ...kept])]
        if (active.length > 0) {
          yield* sql`UPDATE agent_triggers SET state = 'active' WHERE workflow_id = ${workflowId} AND ${sql.in("trigger_path", active)}`
          yield* sql`UPDATE agent_triggers SET state = 'archived' WHERE workflow_id = ${workflowId} AND NOT ${sql.in("trigger_path", active)}`
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

    const version = (id: number) => sql`SELECT * FROM workflow_definitions WHERE id = ${id}`.pipe(Effect.flatMap(firstVersion))

    return WorkflowsRepo.of({
      insert: (input) =>
        conflictOrDie(sql.withTransaction(Effect.gen(function*() {
          const { id } = yield* sql`INSERT INTO workflows (organization_id, workflow_uuid, name, status, created_at, updated_at)
            VALUES (${input.organization_id}, ${input.workflow_uuid}, ${input.name}, 'active', ${input.now}, ${input.now})
            RETURNING id`.pipe(Effect.flatMap(singleId))
          const published = yield* insertVersion(id, 1, "published", input.content, input.now)
          yield* sql`UPDATE workflows SET current_definition_id = ${published.id} WHERE id = ${id}`
          yield* reserveTriggers(input.organization_id, id, input.content.trigger_paths, "none")
          return Option.getOrThrow(yield* findOne(sql`w.id = ${id}`))
        }))),
      list: (organizationId, statuses) =>
        sql`SELECT * FROM workflows WHERE organization_id = ${organizationId} AND ${sql.in("status", statuses)} ORDER BY id DESC`
          .pipe(Effect.flatMap(listItems), StorageBoundary.orDie),
      find: (organizationId, id, choice = "published") =>
        findOne(sql`w.id = ${id} AND w.organization_id = ${organizationId}`, choice).pipe(StorageBoundary.orDie),
      findByUuid: (uuid, choice = "published") => findOne(sql`w.workflow_uuid = ${uuid}`, choice).pipe(StorageBoundary.orDie),
      findByTriggerPath: (path, choice = "published") =>
        findOne(sql`w.id = (SELECT workflow_id FROM agent_triggers WHERE trigger_path = ${path} AND state = 'active')`, choice)
          .pipe(StorageBoundary.orDie),
      update: (input) =>
        conflictOrDie(sql.withTransaction(Effect.gen(function*() {
          if ((yield* lockAgent(input.organization_id, input.id)).length === 0) return Option.none()
          if (input.name !== undefined) {
            yield* sql`UPDATE workflows SET name = ${input.name}, updated_at = ${input.now} WHERE id = ${input.id}`
          }
          if (input.content !== undefined) {
            const number = yield* nextVersionNumber(input.id)
            // A draft replaced before it was published was never run by anything but test calls.
            yield* sql`UPDATE workflow_definitions SET status = 'archived' WHERE workflow_id = ${input.id} AND status = 'draft'`
            yield* insertVersion(input.id, number, "draft", input.content, input.now)
            yield* sql`UPDATE workflows SET updated_at = ${input.now} WHERE id = ${input.id}`
            yield* reserveTriggers(input.organization_id, input.id, input.content.trigger_paths, "published")
          }
          return yield* findOne(sql`w.id = ${input.id}`, "latest")
        }))),
      publish: (input) =>
        sql.withTransaction(Effect.gen(function*() {
          if ((yield* lockAgent(input.organization_id, input.id)).length === 0) return Option.none<PublishOutcome>()
          const draft = yield* sql`SELECT id, trigger_paths FROM workflow_definitions WHERE workflow_id = ${input.id} AND status = 'draft'`
            .pipe(Effect.flatMap(Columns.decodeFirst(Schema.Struct({
              id: Columns.Int,
              trigger_paths: Schema.NullOr(Columns.Json(Schema.Array(Schema.String)))
            }))))
          if (Option.isNone(draft)) return Option.some<PublishOutcome>({ _tag: "NoDraft" })
          if (draft.value.id !== input.draftId) return Option.some<PublishOutcome>({ _tag: "DraftReplaced" })
          yield* sql`UPDATE workflow_definitions SET status = 'archived' WHERE workflow_id = ${input.id} AND status = 'published'`
          yield* sql`UPDATE workflow_definitions SET status = 'published', published_at = ${input.now} WHERE id = ${input.draftId}`
          yield* sql`UPDATE workflows SET current_definition_id = ${input.draftId}, updated_at = ${input.now} WHERE id = ${input.id}`
          // Its paths were reserved for this agent when the draft was saved: only their states change.
          yield* reserveTriggers(input.organization_id, input.id, draft.value.trigger_paths ?? [], "none")
          const published = Option.getOrThrow(yield* version(input.draftId))
          return Option.some<PublishOutcome>({ _tag: "Published", version: published })
        })).pipe(StorageBoundary.orDie),
      createDraft: (organizationId, id, now) =>
        sql.withTransaction(Effect.gen(function*() {
          if ((yield* lockAgent(organizationId, id)).length === 0) return Option.none<WorkflowVersion>()
          const existing = yield* sql`SELECT * FROM workflow_definitions WHERE workflow_id = ${id} AND status = 'draft'`
            .pipe(Effect.flatMap(firstVersion))
          if (Option.isSome(existing)) return existing
          const number = yield* nextVersionNumber(id)
          const { id: draftId } = yield* sql`INSERT INTO workflow_definitions
              (workflow_id, version_number, status, workflow_definition, template_context_variables, workflow_configurations,
               trigger_paths, created_at, published_at)
              SELECT workflow_id, ${number}, 'draft', workflow_definition, template_context_variables, workflow_configurations,
                     trigger_paths, ${now}, NULL
              FROM workflow_definitions WHERE workflow_id = ${id} AND status = 'published'
              RETURNING id`.pipe(Effect.flatMap(singleId))
          return yield* version(draftId)
        })).pipe(StorageBoundary.orDie),
      setStatus: (organizationId, id, status: WorkflowStatus, now) =>
        sql`UPDATE workflows SET status = ${status}, updated_at = ${now} WHERE id = ${id} AND organization_id = ${organizationId}`
          .pipe(Effect.zipRight(findOne(sql`w.id = ${id} AND w.organization_id = ${organizationId}`, "latest")), StorageBoundary.orDie),
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
