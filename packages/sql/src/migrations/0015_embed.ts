import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * The public embed (docs/embed.md): embed tokens (one active per agent; revoked ones are kept,
 * inactive, so a revoked value is never valid again) and the sessions visitors open with them. A
 * session is the credential the web-call and text-chat transports attach with: it names its run, the
 * published version the run runs, the page it was opened from, and when it expires; only a hash of its
 * token is stored. `attached_at`/`ended_at` are for the transports to set.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE embed_tokens (
      id {id},
      token TEXT NOT NULL UNIQUE,
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      workflow_id INTEGER NOT NULL REFERENCES workflows(id),
      created_by INTEGER REFERENCES users(id),
      allowed_origins {json} NOT NULL,
      settings {json},
      usage_count INTEGER NOT NULL DEFAULT 0,
      usage_limit INTEGER,
      expires_at {ts},
      is_active {bool} NOT NULL DEFAULT {true},
      created_at {ts} NOT NULL,
      updated_at {ts} NOT NULL,
      revoked_at {ts}
    )`,
    `CREATE UNIQUE INDEX embed_tokens_one_active ON embed_tokens (workflow_id) WHERE is_active = {true}`,
    `CREATE INDEX embed_tokens_organization ON embed_tokens (organization_id, workflow_id)`,
    `CREATE TABLE embed_sessions (
      id {id},
      token_hash TEXT NOT NULL UNIQUE,
      embed_token_id INTEGER NOT NULL REFERENCES embed_tokens(id),
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      workflow_id INTEGER NOT NULL REFERENCES workflows(id),
      definition_id INTEGER NOT NULL REFERENCES workflow_definitions(id),
      workflow_run_id INTEGER NOT NULL REFERENCES workflow_runs(id),
      modality TEXT NOT NULL CHECK (modality IN ('voice', 'text')),
      origin TEXT,
      client_address TEXT,
      user_agent TEXT,
      created_at {ts} NOT NULL,
      expires_at {ts} NOT NULL,
      attached_at {ts},
      ended_at {ts}
    )`,
    `CREATE INDEX embed_sessions_embed_token ON embed_sessions (embed_token_id, created_at)`,
    `CREATE INDEX embed_sessions_run ON embed_sessions (workflow_run_id)`
  )
})
