import type { ApiKey } from "@agentline/core/api-keys/ApiKey"
import { ApiKeysRepo, type StoredApiKey } from "@agentline/core/api-keys/ApiKeysRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as Columns from "../Columns.js"

const toApiKey = (row: any): ApiKey => ({
  id: Columns.int(row.id),
  name: row.name,
  key_prefix: row.key_prefix,
  is_active: Columns.bool(row.is_active),
  created_at: Columns.ts(row.created_at),
  last_used_at: Columns.tsOrNull(row.last_used_at),
  archived_at: Columns.tsOrNull(row.archived_at)
})

const toStored = (row: any): StoredApiKey => ({
  ...toApiKey(row),
  organization_id: Columns.int(row.organization_id),
  created_by: Columns.int(row.created_by),
  key_hash: row.key_hash
})

export const layer = Layer.effect(
  ApiKeysRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return ApiKeysRepo.of({
      insert: (k) =>
        sql`INSERT INTO api_keys (organization_id, created_by, name, key_hash, key_prefix, created_at)
            VALUES (${k.organization_id}, ${k.created_by}, ${k.name}, ${k.key_hash}, ${k.key_prefix}, ${k.now})
            RETURNING *`.pipe(Effect.map((rows) => toApiKey(rows[0])), Effect.orDie),
      list: (organizationId, includeArchived) =>
        (includeArchived
          ? sql`SELECT * FROM api_keys WHERE organization_id = ${organizationId} ORDER BY id`
          : sql`SELECT * FROM api_keys WHERE organization_id = ${organizationId} AND is_active ORDER BY id`).pipe(
            Effect.map((rows) => rows.map(toApiKey)),
            Effect.orDie
          ),
      findByHash: (keyHash) =>
        sql`SELECT * FROM api_keys WHERE key_hash = ${keyHash}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toStored)),
          Effect.orDie
        ),
      setActive: (organizationId, id, active, now) =>
        sql`UPDATE api_keys SET is_active = ${Columns.boolParam(active)}, archived_at = ${active ? null : now}
            WHERE id = ${id} AND organization_id = ${organizationId} RETURNING *`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toApiKey)),
          Effect.orDie
        ),
      touch: (id, now) => sql`UPDATE api_keys SET last_used_at = ${now} WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie)
    })
  })
)
