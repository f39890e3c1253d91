import { PhoneNumbersRepo, type StoredPhoneNumber } from "@agentline/core/phone-numbers/PhoneNumbersRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Either, Layer, Option } from "effect"
import * as Columns from "../Columns.js"

const toNumber = (row: any): StoredPhoneNumber => ({
  id: Columns.int(row.id),
  organization_id: Columns.int(row.organization_id),
  telephony_configuration_id: Columns.int(row.telephony_configuration_id),
  address: row.address,
  address_normalized: row.address_normalized,
  address_type: row.address_type,
  is_active: Columns.bool(row.is_active),
  is_default_caller_id: Columns.bool(row.is_default_caller_id),
  extra_metadata: Columns.json(row.extra_metadata),
  created_at: Columns.ts(row.created_at),
  updated_at: Columns.ts(row.updated_at),
  country_code: row.country_code ?? null,
  label: row.label ?? null,
  inbound_workflow_id: Columns.intOrNull(row.inbound_workflow_id),
  inbound_workflow_name: row.inbound_workflow_name ?? null
})

export const layer = Layer.effect(
  PhoneNumbersRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

    const select = sql`SELECT p.*, w.name AS inbound_workflow_name FROM phone_numbers p
                       LEFT JOIN workflows w ON w.id = p.inbound_workflow_id`
    const findOne = (organizationId: number, configurationId: number, id: number) =>
      sql`${select} WHERE p.id = ${id} AND p.organization_id = ${organizationId} AND p.telephony_configuration_id = ${configurationId}`
        .pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toNumber)))

    /** Serializes default-caller changes per configuration. */
    const lockConfiguration = (configurationId: number) =>
      isPg ? sql`SELECT id FROM telephony_configurations WHERE id = ${configurationId} FOR UPDATE` : Effect.succeed([])

    const clearDefault = (configurationId: number, now: string) =>
      sql`UPDATE phone_numbers SET is_default_caller_id = ${Columns.boolParam(false)}, updated_at = ${now}
          WHERE telephony_configuration_id = ${configurationId} AND is_default_caller_id`

    return PhoneNumbersRepo.of({
      list: (organizationId, configurationId) =>
        sql`${select} WHERE p.organization_id = ${organizationId} AND p.telephony_configuration_id = ${configurationId}
            ORDER BY p.created_at, p.id`.pipe(Effect.map((rows) => rows.map(toNumber)), Effect.orDie),
      find: (organizationId, configurationId, id) => findOne(organizationId, configurationId, id).pipe(Effect.orDie),
      insert: (n) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* lockConfiguration(n.telephony_configuration_id)
          if (n.is_default_caller_id) yield* clearDefault(n.telephony_configuration_id, n.now)
          const rows = yield* sql`INSERT INTO phone_numbers
            (organization_id, telephony_configuration_id, address, address_normalized, address_type, country_code, label,
             inbound_workflow_id, is_active, is_default_caller_id, extra_metadata, provider, account_id, created_at, updated_at)
            VALUES (${n.organization_id}, ${n.telephony_configuration_id}, ${n.address}, ${n.address_normalized}, ${n.address_type},
                    ${n.country_code}, ${n.label}, ${n.inbound_workflow_id}, ${Columns.boolParam(n.is_active)},
                    ${Columns.boolParam(n.is_default_caller_id)}, ${Columns.jsonParam(n.extra_metadata)}, ${n.provider},
                    ${n.account_id}, ${n.now}, ${n.now})
            ON CONFLICT DO NOTHING RETURNING id`
          if (rows.length === 0) {
            const [own] = yield* sql`SELECT id FROM phone_numbers
              WHERE organization_id = ${n.organization_id} AND address_normalized = ${n.address_normalized}`
            return Either.left(own ? { _tag: "InOrganization" as const } : { _tag: "Routed" as const })
          }
          return Either.right(Option.getOrThrow(yield* findOne(n.organization_id, n.telephony_configuration_id, Columns.int(rows[0]!.id))))
        })).pipe(Effect.orDie),
      update: (n) =>
        sql`UPDATE phone_numbers SET country_code = ${n.country_code}, label = ${n.label}, inbound_workflow_id = ${n.inbound_workflow_id},
            is_active = ${Columns.boolParam(n.is_active)}, extra_metadata = ${Columns.jsonParam(n.extra_metadata)}, updated_at = ${n.now}
            WHERE id = ${n.id} AND organization_id = ${n.organization_id} AND telephony_configuration_id = ${n.telephony_configuration_id}`.pipe(
          Effect.zipRight(findOne(n.organization_id, n.telephony_configuration_id, n.id)),
          Effect.orDie
        ),
      setDefaultCaller: (organizationId, configurationId, id, now) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* lockConfiguration(configurationId)
          const current = yield* findOne(organizationId, configurationId, id)
          if (Option.isNone(current)) return current
          yield* clearDefault(configurationId, now)
          yield* sql`UPDATE phone_numbers SET is_default_caller_id = ${Columns.boolParam(true)}, updated_at = ${now} WHERE id = ${id}`
          return yield* findOne(organizationId, configurationId, id)
        })).pipe(Effect.orDie),
      delete: (organizationId, configurationId, id) =>
        sql`DELETE FROM phone_numbers WHERE id = ${id} AND organization_id = ${organizationId}
            AND telephony_configuration_id = ${configurationId} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),
      callerIds: (configurationId) =>
        sql`SELECT address_normalized, is_default_caller_id FROM phone_numbers
            WHERE telephony_configuration_id = ${configurationId} AND is_active ORDER BY created_at, id`.pipe(
          Effect.map((rows) => ({
            defaultCallerId: (rows.find((r) => Columns.bool(r.is_default_caller_id))?.address_normalized ?? null) as string | null,
            active: rows.map((r) => r.address_normalized as string)
          })),
          Effect.orDie
        )
    })
  })
)
