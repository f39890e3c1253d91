import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"
import { generatedColumns, indexes } from "../runs/RunColumns.js"

/**
 * What operators filter and sort runs by (`GET /runs`, docs/reports.md), as generated columns of
 * `workflow_runs` (computed by the database from the JSON columns: no writer can forget them), and the
 * indexes that answer a filter over a million runs of an organization at once.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.onDialectOrElse({ pg: () => generatedColumns.pg, orElse: () => generatedColumns.sqlite })
  yield* Ddl.run(sql, ...columns.map((column) => `ALTER TABLE workflow_runs ADD COLUMN ${column}`), ...indexes)
})
