import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * Administrators manage users (docs/security.md, "Users"): a deactivated user keeps their row and role
 * but cannot log in, and their API keys are refused; a removed user's row stays for what refers to it
 * (API keys, recordings, tools), out of every list, with its email freed.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `ALTER TABLE users ADD COLUMN deactivated_at {ts}`,
    `ALTER TABLE users ADD COLUMN removed_at {ts}`,
    `CREATE INDEX users_organization ON users (organization_id, id)`
  )
})
