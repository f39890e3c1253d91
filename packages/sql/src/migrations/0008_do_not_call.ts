import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * The do-not-call list: per organization, numbers (normalized like contacts' numbers) never to be
 * dialed, with why and where each came from. Campaign contacts on it end `skipped`, counted in the
 * campaign's `skipped_rows`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE do_not_call (
      organization_id INTEGER NOT NULL,
      phone_number TEXT NOT NULL,
      reason TEXT,
      source TEXT NOT NULL CHECK (source IN ('api', 'run')),
      run_id INTEGER,
      created_at {ts} NOT NULL,
      PRIMARY KEY (organization_id, phone_number)
    )`,
    `ALTER TABLE campaigns ADD COLUMN skipped_rows INTEGER NOT NULL DEFAULT 0`
  )
})
