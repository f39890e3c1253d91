import { ApiKeyId, OrganizationId } from "@agentline/api/Ids"
import { ApiKeysRepo } from "@agentline/core/api-keys/ApiKeysRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

/** An `api_keys` row as listed (no hash, no owner). */
const ApiKeyRow = Schema.Struct({
  id: Columns.Id(ApiKeyId),
  name: Schema.String,
  key_prefix: Schema.String,
  is_active: Columns.Bool,
  created_at: Columns.Ts,
  last_used_at: Schema.NullOr(Columns.Ts),
  archived_at: Schema.NullOr(Columns.Ts)
})
/** The whole `api_keys` row. */
const StoredApiKeyRow = Schema.Struct({
  ...ApiKeyRow.fields,
  organization_id: Columns.Id(OrganizationId),
  created_by: Columns.Int,
  key_hash: Schema.String
})
const keys = Columns.decodeRows(ApiKeyRow)
const firstKey = Columns.decodeFirst(ApiKeyRow)
const singleKey = Columns.decodeSingle(ApiKeyRow)
const firstStored = Columns.decodeFirst(StoredApiKeyRow)

export const layer = Layer.effect(
  ApiKeysRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return ApiKeysRepo.of({
      insert: (k) =>
        sql`INSERT INTO api_keys (organization_id, created_by, name, key_hash, key_prefix, created_at)
            VALUES (${k.organization_id}, ${k.created_by}, ${k.name}, ${k.key_hash}, ${k.key_prefix}, ${k.now})
            RETURNING *`.pipe(Effect.flatMap(singleKey), StorageBoundary.orDie),
      list: ({ createdBy, includeArchived, organizationId }) =>
        sql`SELECT * FROM api_keys WHERE ${
          sql.and([
            sql`organization_id = ${organizationId}`,
            ...(includeArchived ? [] : [sql`is_active`]),
            ...(createdBy === undefined ? [] : [sql`created_by = ${createdBy}`])
          ])
        } ORDER BY id`.pipe(
          Effect.flatMap(keys),
          StorageBoundary.orDie
        ),
      find: (organizationId, id) =>
        sql`SELECT * FROM api_keys WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
          Effect.flatMap(firstStored),
          StorageBoundary.orDie
        ),
      findByHash: (keyHash) =>
        sql`SELECT * FROM api_keys WHERE key_hash = ${keyHash}`.pipe(
          Effect.flatMap(firstStored),
          StorageBoundary.orDie
        ),
      setActive: (organizationId, id, active, now) =>
        sql`UPDATE api_keys SET is_active = ${Columns.boolParam(active)}, archived_at = ${active ? null : now}
            WHERE id = ${id} AND organization_id = ${organizationId} RETURNING *`.pipe(
          Effect.flatMap(firstKey),
          StorageBoundary.orDie
        ),
      touch: (id, now) => sql`UPDATE api_keys SET last_used_at = ${now} WHERE id = ${id}`.pipe(Effect.asVoid, StorageBoundary.orDie)
    })
  })
)
