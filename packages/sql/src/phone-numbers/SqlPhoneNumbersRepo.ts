import { OrganizationId, PhoneNumberId, TelephonyConfigurationId, WorkflowId } from "@agentline/api/Ids"
import { PhoneNumbersRepo } from "@agentline/core/phone-numbers/PhoneNumbersRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Either, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

/** A `phone_numbers` row joined with the name of the agent it is bound to. */
const NumberRow = Schema.Struct({
  id: Columns.Id(PhoneNumberId),
  organization_id: Columns.Id(OrganizationId),
  telephony_configuration_id: Columns.Id(TelephonyConfigurationId),
  address: Schema.String,
  address_normalized: Schema.String,
  address_type: Schema.Literal("pstn", "sip_uri", "sip_extension"), // the table's CHECK
  is_active: Columns.Bool,
  is_default_caller_id: Columns.Bool,
  extra_metadata: Columns.JsonObject,
  created_at: Columns.Ts,
  updated_at: Columns.Ts,
  country_code: Schema.NullOr(Schema.String),
  label: Schema.NullOr(Schema.String),
  inbound_workflow_id: Schema.NullOr(Columns.Id(WorkflowId)),
  inbound_workflow_name: Schema.NullOr(Schema.String)
})
const numbers = Columns.decodeRows(NumberRow)
const firstNumber = Columns.decodeFirst(NumberRow)
const ids = Columns.decodeRows(Columns.IdRow)
const callerIdRows = Columns.decodeRows(Schema.Struct({ address_normalized: Schema.String, is_default_caller_id: Columns.Bool }))

export const layer = Layer.effect(
  PhoneNumbersRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

    const select = sql`SELECT p.*, w.name AS inbound_workflow_name FROM phone_numbers p
                       LEFT JOIN workflows w ON w.id = p.inbound_workflow_id`
    const findOne = (organizationId: number, configurationId: number, id: number) =>
      sql`${select} WHERE p.id = ${id} AND p.organization_id = ${organizationId} AND p.telephony_configuration_id = ${configurationId}`
        .pipe(Effect.flatMap(firstNumber))

    /** Serializes default-caller changes per configuration (`NO KEY`: foreign-key checks are not blocked). */
    const lockConfiguration = (configurationId: number) =>
      isPg ? sql`SELECT id FROM telephony_configurations WHERE id = ${configurationId} FOR NO KEY UPDATE` : Effect.succeed([])

    const clearDefault = (configurationId: number, now: string) =>
      sql`UPDATE phone_numbers SET is_default_caller_id = ${Columns.boolParam(false)}, updated_at = ${now}
          WHERE telephony_configuration_id = ${configurationId} AND is_default_caller_id`

    const makeDefault = (configurationId: number, id: number, now: string) =>
      Effect.zipRight(
        clearDefault(configurationId, now),
        sql`UPDATE phone_numbers SET is_default_caller_id = ${Columns.boolParam(true)}, updated_at = ${now} WHERE id = ${id}`
      )

    return PhoneNumbersRepo.of({
      list: (organizationId, configurationId) =>
        sql`${select} WHERE p.organization_id = ${organizationId} AND p.telephony_configuration_id = ${configurationId}
            ORDER BY p.created_at, p.id`.pipe(Effect.flatMap(numbers), StorageBoundary.orDie),
      find: (organizationId, configurationId, id) => findOne(organizationId, configurationId, id).pipe(StorageBoundary.orDie),
      findByRoutingKey: ({ accountId, address, provider }) =>
        sql`${select} WHERE p.provider = ${provider} AND p.account_id = ${accountId} AND p.address_normalized = ${address}`
          .pipe(Effect.flatMap(firstNumber), StorageBoundary.orDie),
      insert: (n) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* lockConfiguration(n.telephony_configuration_id)
          // Inserted as a plain number first: a refused insert (the address is taken) must leave the
          // configuration's default caller as it was; the default moves only once the number exists.
          const rows = yield* sql`INSERT INTO phone_numbers
            (organization_id, telephony_configuration_id, address, address_normalized, address_type, country_code, label,
             inbound_workflow_id, is_active, is_default_caller_id, extra_metadata, provider, account_id, created_at, updated_at)
            VALUES (${n.organization_id}, ${n.telephony_configuration_id}, ${n.address}, ${n.address_normalized}, ${n.address_type},
                    ${n.country_code}, ${n.label}, ${n.inbound_workflow_id}, ${Columns.boolParam(n.is_active)},
                    ${Columns.boolParam(false)}, ${Columns.jsonParam(n.extra_metadata)}, ${n.provider},
                    ${n.account_id}, ${n.now}, ${n.now})
            ON CONFLICT DO NOTHING RETURNING id`.pipe(Effect.flatMap(ids))
          if (rows.length === 0) {
            const own = yield* sql`SELECT id FROM phone_numbers
              WHERE organization_id = ${n.organization_id} AND address_normalized = ${n.address_normalized}`.pipe(Effect.flatMap(ids))
            return Either.left(own.length > 0 ? { _tag: "InOrganization" as const } : { _tag: "Routed" as const })
          }
          const id = rows[0]!.id
          if (n.is_default_caller_id) yield* makeDefault(n.telephony_configuration_id, id, n.now)
          return Either.right(Option.getOrThrow(yield* findOne(n.organization_id, n.telephony_configuration_id, id)))
        })).pipe(StorageBoundary.orDie),
      update: (n) =>
        sql`UPDATE phone_numbers SET country_code = ${n.country_code}, label = ${n.label}, inbound_workflow_id = ${n.inbound_workflow_id},
            is_active = ${Columns.boolParam(n.is_active)}, extra_metadata = ${Columns.jsonParam(n.extra_metadata)}, updated_at = ${n.now}
            WHERE id = ${n.id} AND organization_id = ${n.organization_id} AND telephony_configuration_id = ${n.telephony_configuration_id}`.pipe(
          Effect.zipRight(findOne(n.organization_id, n.telephony_configuration_id, n.id)),
          StorageBoundary.orDie
        ),
      setDefaultCaller: (organizationId, configurationId, id, now) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* lockConfiguration(configurationId)
          const current = yield* findOne(organizationId, configurationId, id)
          if (Option.isNone(current)) return current
          yield* makeDefault(configurationId, id, now)
          return yield* findOne(organizationId, configurationId, id)
        })).pipe(StorageBoundary.orDie),
      delete: (organizationId, configurationId, id) =>
        sql`DELETE FROM phone_numbers WHERE id = ${id} AND organization_id = ${organizationId}
            AND telephony_configuration_id = ${configurationId} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), StorageBoundary.orDie),
      callerIds: (configurationId) =>
        sql`SELECT address_normalized, is_default_caller_id FROM phone_numbers
            WHERE telephony_configuration_id = ${configurationId} AND is_active ORDER BY created_at, id`.pipe(
          Effect.flatMap(callerIdRows),
          Effect.map((rows) => ({
            defaultCallerId: rows.find((r) => r.is_default_caller_id)?.address_normalized ?? null,
            active: rows.map((r) => r.address_normalized)
          })),
          StorageBoundary.orDie
        )
    })
  })
)
