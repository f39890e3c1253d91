/**
 * A storage failure leaves a repository as core's `StorageError` defect (issue 23: core recognized it by
 * sniffing `@effect/sql`'s `SqlError` tag), so the callers that retry know it without knowing SQL.
 */
import { OrganizationId } from "@agentline/api/Ids"
import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import { isStorageError, storageErrorIn } from "@agentline/core/Storage"
import { Transactor } from "@agentline/core/Transactor"
import { expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option, Schema } from "effect"
import { Repositories, Testing } from "../src/index.js"
import * as StorageBoundary from "../src/StorageBoundary.js"

// No migrations: every statement fails in the database, as it would with the connection gone.
layer(Repositories.layer.pipe(Layer.provideMerge(Testing.layerEmptyDatabase("sqlite"))))("the storage boundary", (it) => {
  it.effect("a failing statement dies as a StorageError, inside a transaction too", () =>
    Effect.gen(function*() {
      const repo = yield* OrganizationsRepo
      const tx = yield* Transactor
      for (const exit of [yield* Effect.exit(repo.findById(OrganizationId.make(1))), yield* Effect.exit(tx.withTransaction(repo.findByName("x")))]) {
        expect(Exit.isFailure(exit) && Option.isSome(storageErrorIn(exit.cause))).toBe(true)
      }
    }))

  it.effect("anything else (a row that does not decode) stays the defect it is", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(StorageBoundary.orDie(Schema.decodeUnknown(Schema.Number)("x")))
      expect(Exit.isFailure(exit) && Option.isNone(storageErrorIn(exit.cause))).toBe(true)
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause) && !isStorageError(Cause.squash(exit.cause))).toBe(true)
    }))
})
