import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * Call attempts keep their duration exactly, in milliseconds: an INTEGER of seconds refused a
 * fractional duration on PostgreSQL (every final write of such a call failed and its campaign never
 * completed) and could not hold one anywhere. `reconcile_at` is when the dispatcher asks the provider
 * about an attempt that has not ended by then (a lost write, a process that lost track of it); open
 * attempts from before this migration are due at once.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `ALTER TABLE call_attempts ADD COLUMN duration_ms INTEGER`,
    `UPDATE call_attempts SET duration_ms = duration_seconds * 1000 WHERE duration_seconds IS NOT NULL`,
    `ALTER TABLE call_attempts DROP COLUMN duration_seconds`,
    `ALTER TABLE call_attempts ADD COLUMN reconcile_at {ts}`,
    `UPDATE call_attempts SET reconcile_at = created_at WHERE state IN ('claimed', 'dialing')`
  )
})
