import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { Database, Migrations, Testing } from "../src/index.js"

for (const dialect of Testing.dialects) {
  layer(Testing.layerDatabase(dialect), { timeout: "60 seconds" })(`Migrations [${dialect}]`, (it) => {
    it.effect("create the foundation tables and can run again with nothing to do", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ n: number }>`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM organizations`
        expect(rows[0]!.n).toBe(0)
        const again = yield* Migrations.run
        expect(again).toEqual([])
      }))
  })
}

describe.skipIf(!Testing.dialects.includes("pg"))("Migrations [pg, concurrent start]", () => {
  it.live("two processes migrating an empty database at once both succeed", () =>
    Effect.gen(function*() {
      const { url } = yield* Testing.freshPgDatabase
      // Two separate clients (two pools) stand for two server processes starting together.
      const migrateWithOwnClient = Migrations.run.pipe(
        Effect.provide(Database.layerPg({ url: Redacted.make(url), maxConnections: 2 }).pipe(Layer.orDie))
      )
      const results = yield* Effect.all([migrateWithOwnClient, migrateWithOwnClient], { concurrency: 2 })
      const applied = results.map((r) => r.length).sort()
      expect(applied[0]).toBe(0)
      expect(applied[1]).toBe(Object.keys(Migrations.migrations).length)
    }).pipe(Effect.scoped), 60_000)
})
