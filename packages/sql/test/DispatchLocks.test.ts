/**
 * The dispatcher's claims serialize on the organization's row, and must block nothing else: a claim
 * that held the row `FOR UPDATE` blocked every foreign-key check on the organization (a run or an
 * attempt being written for it), and a claim (organization, then campaign) and a finishing call
 * (campaign, then a foreign-key check on the organization) deadlocked on PostgreSQL under load.
 * PostgreSQL only: SQLite has one writer at a time and no row locks.
 */
import { OrganizationId, TelephonyConfigurationId } from "@agentline/api/Ids"
import { DispatchRepo } from "@agentline/core/dispatcher/DispatchRepo"
import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import { TelephonyConfigsRepo } from "@agentline/core/telephony/TelephonyConfigsRepo"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Layer, Option } from "effect"
import { Repositories, Testing } from "../src/index.js"

const t0 = "2026-03-01T10:00:00.000Z"

for (const dialect of Testing.dialects.filter((d) => d === "pg")) {
layer(Repositories.layer.pipe(Layer.provideMerge(Testing.layerDatabase(dialect))), { timeout: "60 seconds", excludeTestServices: true })(`dispatcher locks [${dialect}]`, (it) => {
  it.effect("a claim in progress holds back other claims of the organization, not the writes that reference it", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const organization = yield* (yield* OrganizationsRepo).findOrCreate(`org-${Math.random().toString(36).slice(2)}`, t0)
      const config = Either.getOrThrow(yield* (yield* TelephonyConfigsRepo).insert({
        organization_id: organization.id,
        name: "Main",
        provider: "simulator",
        credentials: {},
        account_id: "",
        is_default_outbound: true,
        now: t0
      }))
      const dispatch = yield* DispatchRepo
      const claim = (to: string) =>
        dispatch.claimSingle({
          organizationId: OrganizationId.make(organization.id),
          to,
          provider: "simulator",
          telephonyConfigurationId: TelephonyConfigurationId.make(config.id),
          nodeId: "node-a",
          now: t0,
          reconcileAt: t0
        })

      const claimed = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // A claim whose transaction stays open (the claim runs as a savepoint in it) until released.
      const holder = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
        expect(Option.isSome(yield* claim("+14155550101"))).toBe(true)
        yield* Deferred.succeed(claimed, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(claimed)

      // Another claim of the same organization waits for it...
      const second = yield* Effect.fork(claim("+14155550102"))
      yield* Effect.sleep("300 millis")
      expect(second.unsafePoll()).toBeNull()

      // ...while a write that references the organization (its foreign-key check) goes through.
      const written = yield* sql`INSERT INTO workflows (organization_id, workflow_uuid, name, status, created_at, updated_at)
        VALUES (${organization.id}, ${`wf-${Math.random().toString(36).slice(2)}`}, ${"Referencing"}, ${"active"}, ${t0}, ${t0}) RETURNING id`.pipe(
        Effect.timeout("5 seconds"),
        Effect.either
      )
      expect(Either.isRight(written), "the foreign-key check waited for the claim's lock").toBe(true)

      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      expect(Option.isSome(yield* Fiber.join(second))).toBe(true)
    }).pipe(Effect.orDie))
})
}
