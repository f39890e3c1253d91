import { OrganizationId } from "@agentline/api/Ids"
import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

/** An `organizations` row. */
const OrganizationRow = Schema.Struct({
  id: Columns.Id(OrganizationId),
  name: Schema.String,
  concurrent_call_limit: Columns.Int,
  created_at: Columns.Ts
})
const first = Columns.decodeFirst(OrganizationRow)
const single = Columns.decodeSingle(OrganizationRow)

export const layer = Layer.effect(
  OrganizationsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    return OrganizationsRepo.of({
      findById: (id) => sql`SELECT * FROM organizations WHERE id = ${id}`.pipe(Effect.flatMap(first), StorageBoundary.orDie),
      findByName: (name) => sql`SELECT * FROM organizations WHERE name = ${name}`.pipe(Effect.flatMap(first), StorageBoundary.orDie),
      findOrCreate: (name, now) =>
        sql`INSERT INTO organizations (name, created_at) VALUES (${name}, ${now}) ON CONFLICT (name) DO NOTHING`.pipe(
          Effect.zipRight(sql`SELECT * FROM organizations WHERE name = ${name}`),
          Effect.flatMap(single),
          StorageBoundary.orDie
        ),
      setConcurrentCallLimit: (id, limit) =>
        sql`UPDATE organizations SET concurrent_call_limit = ${limit} WHERE id = ${id} RETURNING *`.pipe(
          Effect.flatMap(first),
          StorageBoundary.orDie
        )
    })
  })
)
