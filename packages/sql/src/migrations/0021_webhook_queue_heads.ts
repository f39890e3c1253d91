import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * The outbox's due query walks pending deliveries in the order they fell due (the existing
 * `webhook_deliveries_due` index, now that the query orders by it) and stops at its limit: each is due
 * when no earlier pending delivery of its endpoint and ordering key exists. This index over pending rows
 * only makes that check one probe, whatever the delivered history of the key (before, each poll sorted
 * every pending row and looked at every earlier delivery of each key).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE INDEX webhook_deliveries_pending_order ON webhook_deliveries (endpoint_id, ordering_key, id) WHERE status = 'pending'`
  )
})
