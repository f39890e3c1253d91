import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * Event webhooks: an organization's endpoints, and the outbox of deliveries (one row per event and
 * endpoint, written in the transaction of the change it reports, so a crash can neither lose an event
 * nor report a change that did not commit). Attempts are kept on their delivery, oldest first.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE webhook_endpoints (
      id {id},
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      url TEXT NOT NULL,
      description TEXT,
      event_types {json} NOT NULL,
      enabled {bool} NOT NULL DEFAULT {true},
      secret TEXT NOT NULL,
      disabled_reason TEXT,
      failing_since {ts},
      created_at {ts} NOT NULL,
      updated_at {ts} NOT NULL
    )`,
    `CREATE INDEX webhook_endpoints_organization ON webhook_endpoints (organization_id)`,
    `CREATE TABLE webhook_deliveries (
      id {id},
      organization_id INTEGER NOT NULL,
      endpoint_id INTEGER REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      run_id INTEGER,
      target {json},
      message_id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      ordering_key TEXT NOT NULL,
      payload {json} NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempt_count INTEGER NOT NULL DEFAULT 0,
      attempts {json} NOT NULL,
      next_attempt_at {ts},
      locked_until {ts},
      created_at {ts} NOT NULL,
      delivered_at {ts}
    )`,
    `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)`,
    `CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id)`,
    `CREATE INDEX webhook_deliveries_order ON webhook_deliveries (endpoint_id, ordering_key, id)`,
    // Post-call work (run.ended, the workflow's webhook nodes) runs once the call has ended AND its media
    // session (the voice runtime's transcript, recordings, extraction) has finished, whichever is last.
    `ALTER TABLE workflow_runs ADD COLUMN media_started_at {ts}`,
    `ALTER TABLE workflow_runs ADD COLUMN media_ended_at {ts}`,
    `ALTER TABLE workflow_runs ADD COLUMN post_call_at {ts}`,
    // Runs that ended before this migration had no post-call work to do: never report them now.
    `UPDATE workflow_runs SET post_call_at = updated_at WHERE is_completed = {true}`,
    `CREATE INDEX workflow_runs_post_call ON workflow_runs (updated_at) WHERE post_call_at IS NULL`
  )
})
