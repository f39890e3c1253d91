/**
 * The one migration set, run at start-up and by `agentline migrate`.
 *
 * On PostgreSQL the whole run holds a transaction-scoped advisory lock: the migrator's own first step
 * (create its table if missing) is not safe when two processes start at once on an empty database,
 * so they queue on the lock instead and the second finds nothing left to do. The table is created
 * here, under the lock, because the migrator's own probe for it fails inside a transaction.
 *
 * On SQLite foreign keys are not enforced while the migrations run: a migration that must rebuild a
 * table (SQLite cannot change a constraint in place) drops a table other tables refer to, which is
 * SQLite's documented procedure only with enforcement off (and the pragma is ignored inside the
 * migrator's transaction, so it is set around it). Every key is checked when a migration was applied.
 */
import { Migrator, SqlClient } from "@effect/sql"
import { Effect } from "effect"
import m0001 from "./migrations/0001_foundation.js"
import m0002 from "./migrations/0002_workflows_and_runs.js"
import m0003 from "./migrations/0003_telephony.js"
import m0004 from "./migrations/0004_campaigns.js"
import m0005 from "./migrations/0005_uploads_once.js"
import m0006 from "./migrations/0006_attempt_durations.js"
import m0007 from "./migrations/0007_media_stream_tokens.js"
import m0008 from "./migrations/0008_do_not_call.js"
import m0009 from "./migrations/0009_webhooks.js"
import m0010 from "./migrations/0010_credentials.js"
import m0011 from "./migrations/0011_connection_leases.js"
import m0012 from "./migrations/0012_workflow_recordings.js"
import m0014 from "./migrations/0014_workflow_drafts.js"
import m0015 from "./migrations/0015_embed.js"
import m0016 from "./migrations/0016_tools.js"
import m0021 from "./migrations/0021_webhook_queue_heads.js"
import m0022 from "./migrations/0022_call_transfers.js"
import m0023 from "./migrations/0023_text_chat_sessions.js"
import m0024 from "./migrations/0024_run_columns.js"
import m0025 from "./migrations/0025_run_search.js"
import m0026 from "./migrations/0026_web_call_tokens.js"
import m0027 from "./migrations/0027_campaign_reports.js"
import m0028 from "./migrations/0028_user_access.js"

/** Keys are `<id>_<name>`; ids only ever grow (the migrator never fills gaps). */
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "0001_foundation": m0001,
  "0002_workflows_and_runs": m0002,
  "0003_telephony": m0003,
  "0004_campaigns": m0004,
  "0005_uploads_once": m0005,
  "0006_attempt_durations": m0006,
  "0007_media_stream_tokens": m0007,
  "0008_do_not_call": m0008,
  "0009_webhooks": m0009,
  "0010_credentials": m0010,
  "0011_connection_leases": m0011,
  "0012_workflow_recordings": m0012,
  "0014_workflow_drafts": m0014,
  "0015_embed": m0015,
  "0016_tools": m0016,
  "0021_webhook_queue_heads": m0021,
  "0022_call_transfers": m0022,
  "0023_text_chat_sessions": m0023,
  "0024_run_columns": m0024,
  "0025_run_search": m0025,
  "0026_web_call_tokens": m0026,
  "0027_campaign_reports": m0027,
  "0028_user_access": m0028
}

const ADVISORY_LOCK_ID = 0x61676c6e // "agln"

export const run: Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, never, SqlClient.SqlClient> = Effect
  .gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const migrate = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: "agentline_migrations" })
    return yield* sql.onDialectOrElse({
      pg: () =>
        sql.withTransaction(
          sql`SELECT pg_advisory_xact_lock(${ADVISORY_LOCK_ID})`.pipe(
            Effect.zipRight(sql`CREATE TABLE IF NOT EXISTS agentline_migrations (
              migration_id integer primary key,
              created_at timestamp with time zone not null default now(),
              name text not null
            )`),
            Effect.zipRight(migrate)
          )
        ),
      orElse: () =>
        sql`PRAGMA foreign_keys = OFF`.pipe(
          Effect.zipRight(migrate),
          Effect.tap((applied) =>
            applied.length === 0 ? Effect.void : Effect.flatMap(sql`PRAGMA foreign_key_check`, (violations) =>
              violations.length === 0
                ? Effect.void
                : Effect.dieMessage(`The migrations left ${violations.length} broken foreign keys: ${JSON.stringify(violations.slice(0, 5))}`))
          ),
          Effect.ensuring(Effect.orDie(sql`PRAGMA foreign_keys = ON`))
        )
    })
  })
  .pipe(Effect.orDie, Effect.withSpan("Migrations.run"))

/**
 * The migrations this version has that the database has not applied (all of them when it was never
 * migrated), as `<id>_<name>`: what the readiness probe and `agentline doctor` report.
 */
export const pending: Effect.Effect<ReadonlyArray<string>, never, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const applied = yield* sql<{ readonly migration_id: number }>`SELECT migration_id FROM agentline_migrations`.pipe(
    Effect.map((rows) => new Set(rows.map((row) => Number(row.migration_id)))),
    // No bookkeeping table yet: nothing was ever applied.
    Effect.orElseSucceed(() => new Set<number>())
  )
  return Object.keys(migrations).filter((key) => !applied.has(Number(key.split("_")[0])))
})
