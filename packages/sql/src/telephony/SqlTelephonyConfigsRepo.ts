import { OrganizationId, TelephonyConfigurationId } from "@agentline/api/Ids"
import {
  type ConfigurationConflict,
  TelephonyConfigsRepo
} from "@agentline/core/telephony/TelephonyConfigsRepo"
import { SqlClient } from "@effect/sql"
import { Data, Effect, Either, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

class Refused extends Data.TaggedError("Refused")<{ readonly conflict: ConfigurationConflict }> {}

/** A `telephony_configurations` row (credentials: the provider config, sensitive values encrypted). */
const ConfigurationRow = Schema.Struct({
  id: Columns.Id(TelephonyConfigurationId),
  organization_id: Columns.Id(OrganizationId),
  name: Schema.String,
  provider: Schema.String,
  credentials: Columns.JsonObject,
  account_id: Schema.String,
  is_default_outbound: Columns.Bool,
  created_at: Columns.Ts,
  updated_at: Columns.Ts
})
const first = Columns.decodeFirst(ConfigurationRow)
const single = Columns.decodeSingle(ConfigurationRow)
const rows = Columns.decodeRows(ConfigurationRow)

/** A configuration as listed: no credentials, the count of its active numbers. */
const ListItemRow = Schema.Struct({
  id: Columns.Id(TelephonyConfigurationId),
  name: Schema.String,
  provider: Schema.String,
  is_default_outbound: Columns.Bool,
  created_at: Columns.Ts,
  updated_at: Columns.Ts,
  phone_number_count: Columns.Int
})
const listItems = Columns.decodeRows(ListItemRow)
const firstId = Columns.decodeFirst(Columns.IdRow)
const firstClash = Columns.decodeFirst(Schema.Struct({ address_normalized: Schema.String }))

export const layer = Layer.effect(
  TelephonyConfigsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

    /**
     * Serializes default changes per organization (SQLite serializes all writers already); `NO KEY` so
     * the lock never blocks other transactions' foreign-key checks on the organization.
     */
    const lockOrganization = (organizationId: number) =>
      isPg ? sql`SELECT id FROM organizations WHERE id = ${organizationId} FOR NO KEY UPDATE` : Effect.succeed([])

    const clearDefault = (organizationId: number, now: string) =>
      sql`UPDATE telephony_configurations SET is_default_outbound = ${Columns.boolParam(false)}, updated_at = ${now}
          WHERE organization_id = ${organizationId} AND is_default_outbound`

    const refusedOrDie = <A>(effect: Effect.Effect<A, unknown>) =>
      effect.pipe(
        Effect.map((a) => Either.right(a)),
        Effect.catchIf((e): e is Refused => e instanceof Refused, (e) => Effect.succeed(Either.left(e.conflict))),
        StorageBoundary.orDie
      ) as Effect.Effect<Either.Either<A, ConfigurationConflict>>

    return TelephonyConfigsRepo.of({
      insert: (input) =>
        refusedOrDie(sql.withTransaction(Effect.gen(function*() {
          yield* lockOrganization(input.organization_id)
          const taken = yield* sql`SELECT id FROM telephony_configurations
            WHERE organization_id = ${input.organization_id} AND name = ${input.name}`.pipe(Effect.flatMap(firstId))
          if (Option.isSome(taken)) return yield* new Refused({ conflict: { _tag: "NameTaken" } })
          if (input.is_default_outbound) yield* clearDefault(input.organization_id, input.now)
          const rows = yield* sql`INSERT INTO telephony_configurations
            (organization_id, name, provider, credentials, account_id, is_default_outbound, created_at, updated_at)
            VALUES (${input.organization_id}, ${input.name}, ${input.provider}, ${Columns.jsonParam(input.credentials)},
                    ${input.account_id}, ${Columns.boolParam(input.is_default_outbound)}, ${input.now}, ${input.now})
            RETURNING *`
          return yield* single(rows)
        }))),
      list: (organizationId) =>
        sql`SELECT c.*, (SELECT CAST(COUNT(*) AS INTEGER) FROM phone_numbers p
                         WHERE p.telephony_configuration_id = c.id AND p.is_active) AS phone_number_count
            FROM telephony_configurations c WHERE c.organization_id = ${organizationId} ORDER BY c.created_at, c.id`
          .pipe(Effect.flatMap(listItems), StorageBoundary.orDie),
      find: (organizationId, id) =>
        sql`SELECT * FROM telephony_configurations WHERE id = ${id} AND organization_id = ${organizationId}`
          .pipe(Effect.flatMap(first), StorageBoundary.orDie),
      listByProvider: (provider) =>
        sql`SELECT * FROM telephony_configurations WHERE provider = ${provider} ORDER BY id`.pipe(Effect.flatMap(rows), StorageBoundary.orDie),
      findDefault: (organizationId) =>
        sql`SELECT * FROM telephony_configurations WHERE organization_id = ${organizationId} AND is_default_outbound`
          .pipe(Effect.flatMap(first), StorageBoundary.orDie),
      update: (input) =>
        refusedOrDie(sql.withTransaction(Effect.gen(function*() {
          yield* lockOrganization(input.organization_id)
          const found = yield* sql`SELECT * FROM telephony_configurations
            WHERE id = ${input.id} AND organization_id = ${input.organization_id}`.pipe(Effect.flatMap(first))
          if (Option.isNone(found)) return Option.none()
          const current = found.value
          const taken = yield* sql`SELECT id FROM telephony_configurations
            WHERE organization_id = ${input.organization_id} AND name = ${input.name} AND id <> ${input.id}`.pipe(Effect.flatMap(firstId))
          if (Option.isSome(taken)) return yield* new Refused({ conflict: { _tag: "NameTaken" } })
          if (input.account_id !== current.account_id) {
            if (input.account_id !== "") {
              const clash = yield* sql`SELECT p.address_normalized FROM phone_numbers p
                WHERE p.telephony_configuration_id = ${input.id} AND EXISTS (
                  SELECT 1 FROM phone_numbers q WHERE q.provider = p.provider AND q.account_id = ${input.account_id}
                    AND q.address_normalized = p.address_normalized AND q.id <> p.id)`.pipe(Effect.flatMap(firstClash))
              if (Option.isSome(clash)) {
                return yield* new Refused({ conflict: { _tag: "RoutingConflict", address: clash.value.address_normalized } })
              }
            }
            yield* sql`UPDATE phone_numbers SET account_id = ${input.account_id} WHERE telephony_configuration_id = ${input.id}`
          }
          const rows = yield* sql`UPDATE telephony_configurations SET name = ${input.name},
            credentials = ${Columns.jsonParam(input.credentials)}, account_id = ${input.account_id}, updated_at = ${input.now}
            WHERE id = ${input.id} RETURNING *`
          return yield* first(rows)
        }))),
      setDefaultOutbound: (organizationId, id, now) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* lockOrganization(organizationId)
          const exists = yield* sql`SELECT id FROM telephony_configurations WHERE id = ${id} AND organization_id = ${organizationId}`
            .pipe(Effect.flatMap(firstId))
          if (Option.isNone(exists)) return Option.none()
          yield* clearDefault(organizationId, now)
          return yield* first(yield* sql`UPDATE telephony_configurations SET is_default_outbound = ${Columns.boolParam(true)},
                                  updated_at = ${now} WHERE id = ${id} RETURNING *`)
        })).pipe(StorageBoundary.orDie),
      delete: (organizationId, id) =>
        sql.withTransaction(Effect.gen(function*() {
          const exists = yield* sql`SELECT id FROM telephony_configurations WHERE id = ${id} AND organization_id = ${organizationId}`
            .pipe(Effect.flatMap(firstId))
          if (Option.isNone(exists)) return "NotFound" as const
          const used = yield* sql`SELECT id FROM campaigns WHERE telephony_configuration_id = ${id} LIMIT 1`.pipe(Effect.flatMap(firstId))
          if (Option.isSome(used)) return "InUse" as const
          yield* sql`DELETE FROM phone_numbers WHERE telephony_configuration_id = ${id}`
          yield* sql`DELETE FROM telephony_configurations WHERE id = ${id}`
          return "Deleted" as const
        })).pipe(StorageBoundary.orDie)
    })
  })
)
