import { DoNotCallRepo } from "@agentline/core/do-not-call/DoNotCallRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

const EntryRow = Schema.Struct({
  phone_number: Schema.String,
  reason: Schema.NullOr(Schema.String),
  source: Schema.Literal("api", "run"),
  run_id: Schema.NullOr(Columns.Int),
  created_at: Columns.Ts
})
const entries = Columns.decodeRows(EntryRow)
const firstEntry = Columns.decodeFirst(EntryRow)
const CountRow = Schema.Struct({ n: Columns.Int })
const count = Columns.decodeSingle(CountRow)

/** Inserts per statement: well under SQLite's bound-parameter limit at 6 columns a row. */
const CHUNK = 500

export const layer = Layer.effect(
  DoNotCallRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return DoNotCallRepo.of({
      add: (organizationId, list, now) =>
        sql.withTransaction(Effect.gen(function*() {
          let added = 0
          for (let i = 0; i < list.length; i += CHUNK) {
            const rows = list.slice(i, i + CHUNK).map((e) => ({ organization_id: organizationId, ...e, created_at: now }))
            // Listed numbers keep their first entry (who asked first, and why).
            const inserted = yield* sql`INSERT INTO do_not_call ${sql.insert(rows)}
              ON CONFLICT (organization_id, phone_number) DO NOTHING RETURNING phone_number`
            added += inserted.length
          }
          return added
        })).pipe(StorageBoundary.orDie),
      remove: (organizationId, phoneNumber) =>
        sql`DELETE FROM do_not_call WHERE organization_id = ${organizationId} AND phone_number = ${phoneNumber} RETURNING phone_number`.pipe(
          Effect.map((rows) => rows.length > 0),
          StorageBoundary.orDie
        ),
      find: (organizationId, phoneNumber) =>
        sql`SELECT * FROM do_not_call WHERE organization_id = ${organizationId} AND phone_number = ${phoneNumber}`.pipe(
          Effect.flatMap(firstEntry),
          StorageBoundary.orDie
        ),
      page: (organizationId, { limit, offset }) =>
        Effect.all({
          entries: sql`SELECT * FROM do_not_call WHERE organization_id = ${organizationId}
                       ORDER BY created_at DESC, phone_number LIMIT ${limit} OFFSET ${offset}`.pipe(Effect.flatMap(entries)),
          total: sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM do_not_call WHERE organization_id = ${organizationId}`.pipe(
            Effect.flatMap(count),
            Effect.map((r) => r.n)
          )
        }).pipe(StorageBoundary.orDie)
    })
  })
)
