import { RecordingsRepo, type StoredRecording } from "@agentline/core/recordings/RecordingsRepo"
import { SqlClient } from "@effect/sql"
import { Data, Effect, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

const RecordingRow = Schema.Struct({
  id: Columns.Int,
  recording_id: Schema.String,
  organization_id: Columns.Int,
  workflow_id: Schema.NullOr(Columns.Int),
  tts_provider: Schema.NullOr(Schema.String),
  tts_model: Schema.NullOr(Schema.String),
  tts_voice_id: Schema.NullOr(Schema.String),
  transcript: Schema.String,
  storage_key: Schema.String,
  storage_backend: Schema.String,
  metadata: Columns.JsonObject,
  created_by: Columns.Int,
  created_at: Columns.Ts,
  is_active: Columns.Bool
})
const rows = Columns.decodeRows(RecordingRow)
const first = Columns.decodeFirst(RecordingRow)

/** One row of a batch conflicted: the whole batch is rolled back. */
class BatchConflict extends Data.TaggedError("BatchConflict")<{}> {}

export const layer = Layer.effect(
  RecordingsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const active = Columns.boolParam(true)
    return RecordingsRepo.of({
      insertAll: (recordings) =>
        sql.withTransaction(Effect.forEach(recordings, (r) =>
          sql`INSERT INTO workflow_recordings ${sql.insert({ ...r, metadata: Columns.jsonParam(r.metadata), is_active: active })}
              ON CONFLICT DO NOTHING RETURNING *`.pipe(
            Effect.flatMap(rows),
            Effect.flatMap((inserted) => inserted.length === 1 ? Effect.succeed(inserted[0]!) : Effect.fail(new BatchConflict()))
          ))).pipe(
          Effect.map((inserted): Option.Option<ReadonlyArray<StoredRecording>> => Option.some(inserted)),
          Effect.catchTag("BatchConflict", () => Effect.succeed(Option.none())),
          StorageBoundary.orDie
        ),
      list: (organizationId, filter) =>
        sql`SELECT * FROM workflow_recordings WHERE organization_id = ${organizationId} AND is_active = ${active}
            ${filter.workflow_id !== undefined ? sql`AND workflow_id = ${filter.workflow_id}` : sql``}
            ${filter.tts_provider !== undefined ? sql`AND tts_provider = ${filter.tts_provider}` : sql``}
            ${filter.tts_model !== undefined ? sql`AND tts_model = ${filter.tts_model}` : sql``}
            ${filter.tts_voice_id !== undefined ? sql`AND tts_voice_id = ${filter.tts_voice_id}` : sql``}
            ORDER BY created_at DESC, id DESC`.pipe(Effect.flatMap(rows), StorageBoundary.orDie),
      findActive: (organizationId, recordingIds) =>
        recordingIds.length === 0
          ? Effect.succeed([])
          : sql`SELECT * FROM workflow_recordings WHERE organization_id = ${organizationId} AND is_active = ${active}
                AND ${sql.in("recording_id", recordingIds)}`.pipe(Effect.flatMap(rows), StorageBoundary.orDie),
      findById: (organizationId, id) =>
        sql`SELECT * FROM workflow_recordings WHERE organization_id = ${organizationId} AND id = ${id}`.pipe(Effect.flatMap(first), StorageBoundary.orDie),
      storageKeyUsed: (storageKey) =>
        sql`SELECT id FROM workflow_recordings WHERE storage_key = ${storageKey}`.pipe(Effect.map((found) => found.length > 0), StorageBoundary.orDie),
      update: (organizationId, id, patch) =>
        sql.withTransaction(Effect.gen(function*() {
          const current = yield* sql`SELECT * FROM workflow_recordings WHERE organization_id = ${organizationId} AND id = ${id}
                                     AND is_active = ${active}`.pipe(Effect.flatMap(first))
          if (Option.isNone(current)) return Option.none()
          if (patch.recording_id !== undefined && patch.recording_id !== current.value.recording_id) {
            const other = yield* sql`SELECT id FROM workflow_recordings WHERE organization_id = ${organizationId}
                                     AND recording_id = ${patch.recording_id} AND is_active = ${active}`
            if (other.length > 0) return Option.some("taken" as const)
          }
          if (Object.keys(patch).length === 0) return Option.some(current.value)
          return yield* sql`UPDATE workflow_recordings SET ${sql.update({ ...patch })} WHERE id = ${id} RETURNING *`.pipe(Effect.flatMap(first))
        })).pipe(StorageBoundary.orDie),
      deactivate: (organizationId, recordingId) =>
        sql`UPDATE workflow_recordings SET is_active = ${Columns.boolParam(false)}
            WHERE organization_id = ${organizationId} AND recording_id = ${recordingId} AND is_active = ${active} RETURNING id`.pipe(
          Effect.map((updated) => updated.length > 0),
          StorageBoundary.orDie
        )
    })
  })
)
