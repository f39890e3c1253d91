import { UploadsRepo } from "@agentline/core/uploads/UploadsRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

/** An `uploads` row. */
const UploadRow = Schema.Struct({
  file_key: Schema.String,
  organization_id: Columns.Int,
  file_name: Schema.String,
  declared_size: Columns.Int,
  content_type: Schema.String,
  stored_size: Schema.NullOr(Columns.Int),
  expires_at: Columns.Ts,
  uploaded_at: Schema.NullOr(Columns.Ts)
})
const firstUpload = Columns.decodeFirst(UploadRow)

export const layer = Layer.effect(
  UploadsRepo,
  Effect.map(SqlClient.SqlClient, (sql) =>
    UploadsRepo.of({
      reserve: (u) =>
        sql`INSERT INTO uploads (file_key, organization_id, file_name, declared_size, content_type, created_at, expires_at)
            VALUES (${u.file_key}, ${u.organization_id}, ${u.file_name}, ${u.declared_size}, ${u.content_type}, ${u.now}, ${u.expires_at})`
          .pipe(Effect.asVoid, StorageBoundary.orDie),
      find: (organizationId, key) =>
        sql`SELECT * FROM uploads WHERE file_key = ${key} AND organization_id = ${organizationId}`.pipe(
          Effect.flatMap(firstUpload),
          StorageBoundary.orDie
        ),
      claim: (key, now) =>
        sql`UPDATE uploads SET receiving_at = ${now}
            WHERE file_key = ${key} AND receiving_at IS NULL AND uploaded_at IS NULL RETURNING file_key`.pipe(
          Effect.map((rows) => rows.length === 1),
          StorageBoundary.orDie
        ),
      abandon: (key) =>
        sql`UPDATE uploads SET receiving_at = NULL WHERE file_key = ${key} AND uploaded_at IS NULL`.pipe(
          Effect.asVoid,
          StorageBoundary.orDie
        ),
      markUploaded: (key, size, now) =>
        sql`UPDATE uploads SET stored_size = ${size}, uploaded_at = ${now} WHERE file_key = ${key}`.pipe(
          Effect.asVoid,
          StorageBoundary.orDie
        )
    }))
)
