import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    // Presigned uploads: the key is reserved when the URL is issued; `uploaded_at` is set once the file is stored.
    `CREATE TABLE uploads (
      file_key TEXT PRIMARY KEY,
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      file_name TEXT NOT NULL,
      declared_size INTEGER NOT NULL,
      content_type TEXT NOT NULL,
      stored_size INTEGER,
      created_at {ts} NOT NULL,
      expires_at {ts} NOT NULL,
      uploaded_at {ts}
    )`,
    `CREATE TABLE campaigns (
      id {id},
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      workflow_id INTEGER NOT NULL REFERENCES workflows(id),
      telephony_configuration_id INTEGER REFERENCES telephony_configurations(id),
      name TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('draft', 'running', 'paused', 'completed', 'failed', 'canceled')),
      source_type TEXT NOT NULL,
      source_id TEXT NOT NULL,
      total_rows INTEGER,
      processed_rows INTEGER NOT NULL DEFAULT 0,
      failed_rows INTEGER NOT NULL DEFAULT 0,
      executed_count INTEGER NOT NULL DEFAULT 0,
      total_queued_count INTEGER NOT NULL DEFAULT 0,
      max_concurrency INTEGER,
      retry_config {json} NOT NULL,
      schedule_config {json},
      circuit_breaker {json} NOT NULL,
      parent_campaign_id INTEGER REFERENCES campaigns(id),
      redialed_campaign_id INTEGER REFERENCES campaigns(id),
      logs {json} NOT NULL,
      -- breaker outcomes before this instant are ignored (set by resume)
      breaker_reset_at {ts},
      -- the dispatcher process dialing this campaign, while its lease lasts
      owner_node TEXT,
      owner_expires_at {ts},
      created_at {ts} NOT NULL,
      started_at {ts},
      completed_at {ts},
      updated_at {ts} NOT NULL
    )`,
    `CREATE INDEX campaigns_organization ON campaigns (organization_id, id)`,
    `CREATE INDEX campaigns_state ON campaigns (state)`,
    // One row per CSV contact, with its own durable dialing state:
    // queued -> dialing -> queued (retry due at next_attempt_at) | done | exhausted | interrupted | skipped
    `CREATE TABLE contacts (
      id {id},
      campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
      organization_id INTEGER NOT NULL,
      row_number INTEGER NOT NULL,
      phone_number TEXT NOT NULL,
      timezone TEXT,
      initial_context {json} NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('queued', 'dialing', 'done', 'exhausted', 'interrupted', 'skipped')),
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at {ts},
      last_outcome TEXT,
      updated_at {ts} NOT NULL,
      UNIQUE (campaign_id, phone_number)
    )`,
    `CREATE INDEX contacts_claim ON contacts (campaign_id, state, next_attempt_at, id)`,
    // One row per call placed (campaign attempts and single calls); the source of truth for "in progress".
    `CREATE TABLE call_attempts (
      id {id},
      organization_id INTEGER NOT NULL,
      campaign_id INTEGER,
      contact_id INTEGER,
      run_id INTEGER,
      telephony_configuration_id INTEGER,
      provider TEXT NOT NULL,
      provider_call_id TEXT,
      attempt_number INTEGER NOT NULL,
      from_number TEXT,
      to_number TEXT NOT NULL,
      -- claimed: reserved a slot, not yet handed to the provider (safe to requeue after a crash);
      -- dialing: handed to the provider (after a crash only the provider can tell what happened)
      state TEXT NOT NULL CHECK (state IN ('claimed', 'dialing', 'ended', 'interrupted')),
      outcome TEXT,
      duration_seconds INTEGER,
      node_id TEXT NOT NULL,
      created_at {ts} NOT NULL,
      answered_at {ts},
      ended_at {ts}
    )`,
    `CREATE INDEX call_attempts_org_state ON call_attempts (organization_id, state)`,
    `CREATE INDEX call_attempts_campaign_state ON call_attempts (campaign_id, state)`,
    `CREATE INDEX call_attempts_node_state ON call_attempts (node_id, state)`,
    `CREATE INDEX call_attempts_provider_call ON call_attempts (provider, provider_call_id)`,
    `CREATE TABLE dispatcher_nodes (
      node_id TEXT PRIMARY KEY,
      started_at {ts} NOT NULL,
      heartbeat_at {ts} NOT NULL
    )`
  )
})
