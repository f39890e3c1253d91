/**
 * The database connection: PostgreSQL when `DATABASE_URL` is set, else the embedded SQLite file under
 * `AGENTLINE_DATA_DIR`. Both provide `SqlClient`, so every repository is written once.
 *
 * Row values are made alike across the two drivers here, once, rather than in every repository:
 * PostgreSQL `bigint` comes back as a JS number and `timestamptz` as an ISO-8601 string, which is what
 * SQLite stores (the application writes timestamps itself, from Effect's Clock).
 */
import { SqlClient, SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import pg from "pg"

export type Dialect = "sqlite" | "pg"

const INT8 = 20
const TIMESTAMP = 1114
const TIMESTAMPTZ = 1184

const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: (oid: number, format?: "text" | "binary"): (value: string) => unknown => {
    switch (oid) {
      case INT8:
        return (value: string) => Number(value)
      case TIMESTAMPTZ:
      case TIMESTAMP:
        return (value: string) => new Date(oid === TIMESTAMP ? `${value}Z` : value).toISOString()
      default:
        return format === "binary" ? pg.types.getTypeParser(oid, "binary") : pg.types.getTypeParser(oid, "text")
    }
  }
}

export interface PgOptions {
  readonly url: Redacted.Redacted
  readonly maxConnections?: number
}

/** What the connection pool is doing now: open connections, idle ones, queries waiting for one, the most it opens. */
export interface PoolUse {
  readonly total: number
  readonly idle: number
  readonly waiting: number
  readonly max: number
}

/**
 * The connection pool's use, for the metrics endpoint: PostgreSQL's pool; none for SQLite (one
 * connection, no pool) or a client the application brought.
 */
export class DatabasePool extends Context.Reference<DatabasePool>()("@agentline/sql/DatabasePool", {
  defaultValue: (): { readonly use: () => Option.Option<PoolUse> } => ({ use: () => Option.none() })
}) {}

/**
 * PostgreSQL via @effect/sql-pg, over a pool made here (as `PgClient.layer` makes it) so that its use
 * can be reported (`DatabasePool`).
 */
export const layerPg = (options: PgOptions): Layer.Layer<SqlClient.SqlClient | DatabasePool, unknown> =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const max = options.maxConnections ?? 10
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new pg.Pool({
          connectionString: Redacted.value(options.url),
          max,
          application_name: "agentline",
          types: pgTypes
        })
        // A connection that fails while idle is dropped by the pool; the next query opens another.
        pool.on("error", () => {})
        return pool
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    )
    yield* Effect.tryPromise({
      try: () => pool.query("SELECT 1"),
      catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
    }).pipe(Effect.timeoutFail({
      duration: "5 seconds",
      onTimeout: () => new SqlError.SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
    }))
    return Layer.merge(
      PgClient.layerFromPool({
        acquire: Effect.succeed(pool),
        applicationName: "agentline",
        types: pgTypes,
        // JSON keys are user data (CSV columns, initial_context): never rename them.
        transformJson: false
      }),
      Layer.succeed(DatabasePool, {
        use: () => Option.some({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max })
      })
    )
  }))

/** The embedded default: one SQLite file (WAL mode). SQLite is a single-process store. */
export const layerSqlite = (options: { readonly filename: string }): Layer.Layer<SqlClient.SqlClient, unknown> =>
  Layer.unwrapEffect(
    Effect.sync(() => {
      if (options.filename !== ":memory:") NodeFs.mkdirSync(NodePath.dirname(NodePath.resolve(options.filename)), { recursive: true })
      return Layer.effectDiscard(
        // WAL with synchronous=NORMAL: a commit survives a crash of the process (what crash safety
        // here means); only an OS crash or power loss can lose the last commits. FULL would fsync
        // every transaction and cost most of the dispatcher's throughput.
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`PRAGMA synchronous = NORMAL`)
      ).pipe(Layer.provideMerge(SqliteClient.layer({ filename: options.filename })))
    })
  )

export interface DatabaseSettings {
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
}

export const settingsConfig: Config.Config<DatabaseSettings> = Config.all({
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  dataDir: Config.string("AGENTLINE_DATA_DIR").pipe(Config.withDefault("./data"))
})

export const describe = (settings: DatabaseSettings): string =>
  Option.match(settings.databaseUrl, {
    onNone: () => `SQLite at ${NodePath.resolve(settings.dataDir, "agentline.db")}`,
    onSome: (url) => {
      const parsed = new URL(Redacted.value(url))
      return `PostgreSQL at ${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`
    }
  })

/** Chooses the dialect from the settings: `DATABASE_URL` → PostgreSQL, else SQLite in the data directory. */
export const layerFromSettings = (settings: DatabaseSettings): Layer.Layer<SqlClient.SqlClient, unknown> =>
  Option.match(settings.databaseUrl, {
    onNone: () => layerSqlite({ filename: NodePath.join(settings.dataDir, "agentline.db") }),
    onSome: (url) => layerPg({ url })
  })

export const layerConfig: Layer.Layer<SqlClient.SqlClient, unknown> = Layer.unwrapEffect(
  Effect.map(settingsConfig, layerFromSettings)
)
