import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * An upload URL works once: `receiving_at` is set by the PUT that claims it, before any byte is
 * stored, so a second PUT (even a concurrent one) is refused instead of replacing the file.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(sql, `ALTER TABLE uploads ADD COLUMN receiving_at {ts}`)
})
