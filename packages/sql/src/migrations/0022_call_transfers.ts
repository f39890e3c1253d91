import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * Transfers to a person (`core/transfers`): one row per transfer an agent asked for, found by its
 * `transfer_uuid` when the provider posts the result (`/telephony/transfer-result/{transfer_id}`).
 * `status` is `dialing` until the first result, then the target's outcome (later results change nothing).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE call_transfers (
      id {id},
      transfer_uuid TEXT NOT NULL UNIQUE,
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      run_id INTEGER NOT NULL REFERENCES workflow_runs(id),
      attempt_id INTEGER NOT NULL,
      telephony_configuration_id INTEGER,
      provider TEXT NOT NULL,
      provider_call_id TEXT NOT NULL,
      target TEXT NOT NULL,
      mode TEXT NOT NULL CHECK (mode IN ('cold', 'warm')),
      requested_mode TEXT NOT NULL CHECK (requested_mode IN ('cold', 'warm')),
      status TEXT NOT NULL CHECK (status IN ('dialing', 'answered', 'busy', 'no_answer', 'failed')),
      cause TEXT,
      started_at {ts} NOT NULL,
      ended_at {ts}
    )`,
    `CREATE INDEX call_transfers_run ON call_transfers (run_id, id)`
  )
})
