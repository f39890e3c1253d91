import type { TelephonyConfigurationListItem } from "@agentline/core/telephony/TelephonyConfig"
import {
  type ConfigurationConflict,
  type StoredTelephonyConfiguration,
  TelephonyConfigsRepo
} from "@agentline/core/telephony/TelephonyConfigsRepo"
import { SqlClient } from "@effect/sql"
import { Data, Effect, Either, Layer, Option } from "effect"
import * as Columns from "../Columns.js"

class Refused extends Data.TaggedError("Refused")<{ readonly conflict: ConfigurationConflict }> {}

const toConfiguration = (row: any): StoredTelephonyConfiguration => ({
  id: Columns.int(row.id),
  organization_id: Columns.int(row.organization_id),
  name: row.name,
  provider: row.provider,
  credentials: Columns.json(row.credentials),
  account_id: row.account_id,
  is_default_outbound: Columns.bool(row.is_default_outbound),
  created_at: Columns.ts(row.created_at),
  updated_at: Columns.ts(row.updated_at)
})

const toListItem = (row: any): TelephonyConfigurationListItem => ({
  id: Columns.int(row.id),
  name: row.name,
  provider: row.provider,
  is_default_outbound: Columns.bool(row.is_default_outbound),
  created_at: Columns.ts(row.created_at),
  updated_at: Columns.ts(row.updated_at),
  phone_number_count: Columns.int(row.phone_number_count ?? 0)
})

export const layer = Layer.effect(
  TelephonyConfigsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    const first = (rows: ReadonlyArray<any>) => Option.map(Option.fromNullable(rows[0]), toConfiguration)

    /** Serializes default changes per organization (SQLite serializes all writers already). */
    const lockOrganization = (organizationId: number) =>
      isPg ? sql`SELECT id FROM organizations WHERE id = ${organizationId} FOR UPDATE` : Effect.succeed([])

    const clearDefault = (organizationId: number, now: string) =>
      sql`UPDATE telephony_configurations SET is_default_outbound = ${Columns.boolParam(false)}, updated_at = ${now}
          WHERE organization_id = ${organizationId} AND is_default_outbound`

    const refusedOrDie = <A>(effect: Effect.Effect<A, unknown>) =>
      effect.pipe(
        Effect.map((a) => Either.right(a)),
        Effect.catchIf((e): e is Refused => e instanceof Refused, (e) => Effect.succeed(Either.left(e.conflict))),
        Effect.orDie
      ) as Effect.Effect<Either.Either<A, ConfigurationConflict>>

    return TelephonyConfigsRepo.of({
      insert: (input) =>
        refusedOrDie(sql.withTransaction(Effect.gen(function*() {
          yield* lockOrganization(input.organization_id)
          const [taken] = yield* sql`SELECT id FROM telephony_configurations WHERE organization_id = ${input.organization_id} AND name = ${input.name}`
          if (taken) return yield* new Refused({ conflict: { _tag: "NameTaken" } })
          if (input.is_default_outbound) yield* clearDefault(input.organization_id, input.now)
          const rows = yield* sql`INSERT INTO telephony_configurations
            (organization_id, name, provider, credentials, account_id, is_default_outbound, created_at, updated_at)
            VALUES (${input.organization_id}, ${input.name}, ${input.provider}, ${Columns.jsonParam(input.credentials)},
                    ${input.account_id}, ${Columns.boolParam(input.is_default_outbound)}, ${input.now}, ${input.now})
            RETURNING *`
          return toConfiguration(rows[0])
        }))),
      list: (organizationId) =>
        sql`SELECT c.*, (SELECT CAST(COUNT(*) AS INTEGER) FROM phone_numbers p
                         WHERE p.telephony_configuration_id = c.id AND p.is_active) AS phone_number_count
            FROM telephony_configurations c WHERE c.organization_id = ${organizationId} ORDER BY c.created_at, c.id`
          .pipe(Effect.map((rows) => rows.map(toListItem)), Effect.orDie),
      find: (organizationId, id) =>
        sql`SELECT * FROM telephony_configurations WHERE id = ${id} AND organization_id = ${organizationId}`
          .pipe(Effect.map(first), Effect.orDie),
      findDefault: (organizationId) =>
        sql`SELECT * FROM telephony_configurations WHERE organization_id = ${organizationId} AND is_default_outbound`
          .pipe(Effect.map(first), Effect.orDie),
      update: (input) =>
        refusedOrDie(sql.withTransaction(Effect.gen(function*() {
          yield* lockOrganization(input.organization_id)
          const [current] = yield* sql`SELECT * FROM telephony_configurations WHERE id = ${input.id} AND organization_id = ${input.organization_id}`
          if (!current) return Option.none()
          const [taken] = yield* sql`SELECT id FROM telephony_configurations
            WHERE organization_id = ${input.organization_id} AND name = ${input.name} AND id <> ${input.id}`
          if (taken) return yield* new Refused({ conflict: { _tag: "NameTaken" } })
          if (input.account_id !== current.account_id) {
            if (input.account_id !== "") {
              const [clash] = yield* sql`SELECT p.address_normalized FROM phone_numbers p
                WHERE p.telephony_configuration_id = ${input.id} AND EXISTS (
                  SELECT 1 FROM phone_numbers q WHERE q.provider = p.provider AND q.account_id = ${input.account_id}
                    AND q.address_normalized = p.address_normalized AND q.id <> p.id)`
              if (clash) return yield* new Refused({ conflict: { _tag: "RoutingConflict", address: clash.address_normalized as string } })
            }
            yield* sql`UPDATE phone_numbers SET account_id = ${input.account_id} WHERE telephony_configuration_id = ${input.id}`
          }
          const rows = yield* sql`UPDATE telephony_configurations SET name = ${input.name},
            credentials = ${Columns.jsonParam(input.credentials)}, account_id = ${input.account_id}, updated_at = ${input.now}
            WHERE id = ${input.id} RETURNING *`
          return first(rows)
        }))),
      setDefaultOutbound: (organizationId, id, now) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* lockOrganization(organizationId)
          const [exists] = yield* sql`SELECT id FROM telephony_configurations WHERE id = ${id} AND organization_id = ${organizationId}`
          if (!exists) return Option.none()
          yield* clearDefault(organizationId, now)
          return first(yield* sql`UPDATE telephony_configurations SET is_default_outbound = ${Columns.boolParam(true)},
                                  updated_at = ${now} WHERE id = ${id} RETURNING *`)
        })).pipe(Effect.orDie),
      delete: (organizationId, id) =>
        sql.withTransaction(Effect.gen(function*() {
          const [exists] = yield* sql`SELECT id FROM telephony_configurations WHERE id = ${id} AND organization_id = ${organizationId}`
          if (!exists) return "NotFound" as const
          const [used] = yield* sql`SELECT id FROM campaigns WHERE telephony_configuration_id = ${id} LIMIT 1`
          if (used) return "InUse" as const
          yield* sql`DELETE FROM phone_numbers WHERE telephony_configuration_id = ${id}`
          yield* sql`DELETE FROM telephony_configurations WHERE id = ${id}`
          return "Deleted" as const
        })).pipe(Effect.orDie)
    })
  })
)
