import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/** Which process holds a configuration's provider connection (ARI's events WebSocket). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE connection_leases (
      lease_key TEXT PRIMARY KEY,
      owner_node TEXT NOT NULL,
      expires_at {ts} NOT NULL
    )`
  )
})
