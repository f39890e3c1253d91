import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE workflows (
      id {id},
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      workflow_uuid TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('active', 'archived')),
      current_definition_id INTEGER,
      call_disposition_codes {json},
      total_runs INTEGER NOT NULL DEFAULT 0,
      created_at {ts} NOT NULL,
      updated_at {ts} NOT NULL
    )`,
    `CREATE INDEX workflows_organization ON workflows (organization_id, id)`,
    `CREATE TABLE workflow_definitions (
      id {id},
      workflow_id INTEGER NOT NULL REFERENCES workflows(id),
      version_number INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('published', 'archived')),
      workflow_definition {json} NOT NULL,
      template_context_variables {json},
      workflow_configurations {json},
      created_at {ts} NOT NULL,
      UNIQUE (workflow_id, version_number)
    )`,
    // A trigger path belongs to the agent that first used it, for good: a link once published must
    // never start another organization's agent. Removed from the definition, it is archived, not freed.
    `CREATE TABLE agent_triggers (
      trigger_path TEXT PRIMARY KEY,
      workflow_id INTEGER NOT NULL REFERENCES workflows(id),
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      state TEXT NOT NULL CHECK (state IN ('active', 'archived'))
    )`,
    `CREATE TABLE workflow_runs (
      id {id},
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      workflow_id INTEGER NOT NULL REFERENCES workflows(id),
      definition_id INTEGER REFERENCES workflow_definitions(id),
      name TEXT NOT NULL,
      mode TEXT NOT NULL,
      call_type TEXT NOT NULL CHECK (call_type IN ('inbound', 'outbound')),
      is_completed {bool} NOT NULL DEFAULT {false},
      campaign_id INTEGER,
      initial_context {json},
      gathered_context {json},
      cost_info {json},
      usage_info {json},
      logs {json},
      annotations {json},
      transcript_key TEXT,
      recording_key TEXT,
      user_recording_key TEXT,
      bot_recording_key TEXT,
      created_at {ts} NOT NULL,
      updated_at {ts} NOT NULL
    )`,
    `CREATE INDEX workflow_runs_workflow ON workflow_runs (workflow_id, id)`,
    `CREATE INDEX workflow_runs_campaign ON workflow_runs (campaign_id, id)`
  )
})
