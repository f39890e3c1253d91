/**
 * Databases for tests: a fresh SQLite file, or a fresh PostgreSQL database on the server named by
 * `AGENTLINE_TEST_PG_URL` (found by the vitest global setup), each migrated and dropped afterwards.
 * Every storage test runs once per entry of `dialects`.
 */
import { SqlClient } from "@effect/sql"
import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Database from "./Database.js"
import * as Migrations from "./Migrations.js"

/** The dialects this test run covers: SQLite always, PostgreSQL when the global setup reached it. */
export const dialects: ReadonlyArray<Database.Dialect> = process.env.AGENTLINE_TEST_PG_AVAILABLE === "1"
  ? ["sqlite", "pg"]
  : ["sqlite"]

const pgAdminUrl = () => process.env.AGENTLINE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const uniqueName = (prefix: string) => `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`

const withAdmin = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.scoped(
    Effect.flatMap(PgClient.make({ url: Redacted.make(pgAdminUrl()), maxConnections: 1 }), f)
  ).pipe(Effect.provide(Reactivity.layer), Effect.orDie) as Effect.Effect<A>

/** A fresh, empty PostgreSQL database; its URL, dropped when the scope closes. */
export const freshPgDatabase = Effect.acquireRelease(
  Effect.gen(function*() {
    const name = uniqueName("agentline_test")
    yield* withAdmin((sql) => sql.unsafe(`CREATE DATABASE ${name}`))
    const url = new URL(pgAdminUrl())
    url.pathname = `/${name}`
    return { name, url: url.toString() }
  }),
  ({ name }) => withAdmin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).pipe(Effect.ignore)
)

/** A fresh SQLite file in a temporary directory, removed when the scope closes. */
export const freshSqliteFile = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-test-"))
    return NodePath.join(dir, "agentline.db")
  }),
  (file) => Effect.sync(() => NodeFs.rmSync(NodePath.dirname(file), { recursive: true, force: true }))
)

/** An unmigrated client on a fresh database of the dialect. */
export const layerEmptyDatabase = (dialect: Database.Dialect): Layer.Layer<SqlClient.SqlClient> =>
  Layer.unwrapScoped(
    dialect === "pg"
      ? Effect.map(freshPgDatabase, ({ url }) => Database.layerPg({ url: Redacted.make(url), maxConnections: 8 }))
      : Effect.map(freshSqliteFile, (filename) => Database.layerSqlite({ filename }))
  ).pipe(Layer.orDie)

/** A migrated client on a fresh database of the dialect. */
export const layerDatabase = (dialect: Database.Dialect): Layer.Layer<SqlClient.SqlClient> =>
  Layer.effectDiscard(Migrations.run).pipe(Layer.provideMerge(layerEmptyDatabase(dialect)))
