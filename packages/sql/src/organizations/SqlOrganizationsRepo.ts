import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import type { Organization } from "@agentline/core/organizations/Organization"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as Columns from "../Columns.js"

const toOrganization = (row: any): Organization => ({
  id: Columns.int(row.id),
  name: row.name,
  concurrent_call_limit: Columns.int(row.concurrent_call_limit),
  created_at: Columns.ts(row.created_at)
})

export const layer = Layer.effect(
  OrganizationsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const first = (rows: ReadonlyArray<any>) => Option.map(Option.fromNullable(rows[0]), toOrganization)

    return OrganizationsRepo.of({
      findById: (id) => sql`SELECT * FROM organizations WHERE id = ${id}`.pipe(Effect.map(first), Effect.orDie),
      findByName: (name) => sql`SELECT * FROM organizations WHERE name = ${name}`.pipe(Effect.map(first), Effect.orDie),
      findOrCreate: (name, now) =>
        sql`INSERT INTO organizations (name, created_at) VALUES (${name}, ${now}) ON CONFLICT (name) DO NOTHING`.pipe(
          Effect.zipRight(sql`SELECT * FROM organizations WHERE name = ${name}`),
          Effect.map((rows) => toOrganization(rows[0])),
          Effect.orDie
        ),
      setConcurrentCallLimit: (id, limit) =>
        sql`UPDATE organizations SET concurrent_call_limit = ${limit} WHERE id = ${id} RETURNING *`.pipe(
          Effect.map(first),
          Effect.orDie
        )
    })
  })
)
