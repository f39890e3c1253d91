import { type StoredUpload, UploadsRepo } from "@agentline/core/uploads/UploadsRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as Columns from "../Columns.js"

const toUpload = (row: any): StoredUpload => ({
  file_key: row.file_key,
  organization_id: Columns.int(row.organization_id),
  file_name: row.file_name,
  declared_size: Columns.int(row.declared_size),
  content_type: row.content_type,
  stored_size: Columns.intOrNull(row.stored_size),
  expires_at: Columns.ts(row.expires_at),
  uploaded_at: Columns.tsOrNull(row.uploaded_at)
})

export const layer = Layer.effect(
  UploadsRepo,
  Effect.map(SqlClient.SqlClient, (sql) =>
    UploadsRepo.of({
      reserve: (u) =>
        sql`INSERT INTO uploads (file_key, organization_id, file_name, declared_size, content_type, created_at, expires_at)
            VALUES (${u.file_key}, ${u.organization_id}, ${u.file_name}, ${u.declared_size}, ${u.content_type}, ${u.now}, ${u.expires_at})`
          .pipe(Effect.asVoid, Effect.orDie),
      find: (organizationId, key) =>
        sql`SELECT * FROM uploads WHERE file_key = ${key} AND organization_id = ${organizationId}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toUpload)),
          Effect.orDie
        ),
      markUploaded: (key, size, now) =>
        sql`UPDATE uploads SET stored_size = ${size}, uploaded_at = ${now} WHERE file_key = ${key}`.pipe(
          Effect.asVoid,
          Effect.orDie
        )
    }))
)
