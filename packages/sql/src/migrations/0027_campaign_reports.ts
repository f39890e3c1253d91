import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * A campaign's report (`GET /campaign/{id}/report`, docs/reports.md) reads its contacts in keyset pages
 * and, for each, its last call's run: both are index lookups, so a page costs its own size however many
 * contacts the campaign has.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE INDEX contacts_campaign_id ON contacts (campaign_id, id)`,
    `CREATE INDEX call_attempts_contact ON call_attempts (contact_id, id)`
  )
})
