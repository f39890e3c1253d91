import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * Pre-recorded audio an agent plays instead of synthesized speech (greetings, transition speech), the
 * reference's `workflow_recordings`. `recording_id` is the short name definitions refer to: unique
 * among the organization's active recordings (a deleted one is kept, inactive, for the runs that played it).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE workflow_recordings (
      id {id},
      recording_id TEXT NOT NULL,
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      workflow_id INTEGER REFERENCES workflows(id),
      tts_provider TEXT,
      tts_model TEXT,
      tts_voice_id TEXT,
      transcript TEXT NOT NULL,
      storage_key TEXT NOT NULL,
      storage_backend TEXT NOT NULL,
      metadata {json} NOT NULL,
      created_by INTEGER NOT NULL REFERENCES users(id),
      created_at {ts} NOT NULL,
      is_active {bool} NOT NULL DEFAULT {true}
    )`,
    `CREATE UNIQUE INDEX workflow_recordings_active_id ON workflow_recordings (organization_id, recording_id) WHERE is_active = {true}`,
    `CREATE UNIQUE INDEX workflow_recordings_storage_key ON workflow_recordings (storage_key)`,
    `CREATE INDEX workflow_recordings_organization ON workflow_recordings (organization_id, created_at)`
  )
})
