import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"
import { search } from "../runs/RunColumns.js"

/**
 * Full-text search over runs' transcripts and gathered context: an FTS5 table kept by triggers on
 * SQLite, a GIN index over a `tsvector` expression on PostgreSQL (docs/reports.md).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(sql, ...sql.onDialectOrElse({ pg: () => search.pg, orElse: () => search.sqlite }))
})
