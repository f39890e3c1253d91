import { CredentialType } from "@agentline/api/credentials/Credentials"
import { CredentialsRepo } from "@agentline/core/credentials/CredentialsRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

const CredentialRow = Schema.Struct({
  uuid: Schema.String,
  organization_id: Columns.Int,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  credential_type: CredentialType,
  sealed_data: Schema.String,
  created_at: Columns.Ts,
  updated_at: Schema.NullOr(Columns.Ts)
})
const rows = Columns.decodeRows(CredentialRow)
const first = (found: ReadonlyArray<unknown>) => Effect.map(rows(found), (decoded) => Option.fromNullable(decoded[0]))

export const layer = Layer.effect(
  CredentialsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return CredentialsRepo.of({
      insert: (c) => sql`INSERT INTO credentials ${sql.insert({ ...c })}`.pipe(Effect.asVoid, StorageBoundary.orDie),
      list: (organizationId) =>
        sql`SELECT * FROM credentials WHERE organization_id = ${organizationId} ORDER BY created_at, uuid`.pipe(Effect.flatMap(rows), StorageBoundary.orDie),
      find: (organizationId, uuid) =>
        sql`SELECT * FROM credentials WHERE organization_id = ${organizationId} AND uuid = ${uuid}`.pipe(Effect.flatMap(first), StorageBoundary.orDie),
      update: (organizationId, uuid, patch, now) =>
        sql`UPDATE credentials SET ${sql.update({ ...patch, updated_at: now })}
            WHERE organization_id = ${organizationId} AND uuid = ${uuid} RETURNING *`.pipe(Effect.flatMap(first), StorageBoundary.orDie),
      remove: (organizationId, uuid) =>
        sql`DELETE FROM credentials WHERE organization_id = ${organizationId} AND uuid = ${uuid} RETURNING uuid`.pipe(
          Effect.map((deleted) => deleted.length > 0),
          StorageBoundary.orDie
        )
    })
  })
)
