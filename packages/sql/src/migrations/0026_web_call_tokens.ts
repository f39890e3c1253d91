import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * The tokens of web calls (docs/web-calls.md): `POST /workflow/{id}/web-call` gives one with its run,
 * the browser opens the call's WebSocket with it. Only a hash is stored; a token works once
 * (`used_at`) and for a minute.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE web_call_tokens (
      token_hash TEXT PRIMARY KEY,
      workflow_run_id INTEGER NOT NULL REFERENCES workflow_runs(id),
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      created_at {ts} NOT NULL,
      expires_at {ts} NOT NULL,
      used_at {ts}
    )`,
    `CREATE INDEX web_call_tokens_expiry ON web_call_tokens (expires_at)`
  )
})
