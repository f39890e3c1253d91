import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * Text chat sessions (docs/text-chat.md): a conversation with an agent's graph by text, one per run.
 * `data` holds the turns (with the conversation's state after each, so a rewind can go back to any of
 * them) and the usage; `revision` grows with every change, and a change names the revision it read
 * (`UPDATE ... WHERE revision = ?`), so two writers never both win.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE text_chat_sessions (
      workflow_run_id INTEGER PRIMARY KEY REFERENCES workflow_runs(id),
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      workflow_id INTEGER NOT NULL REFERENCES workflows(id),
      revision INTEGER NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('active', 'completed')),
      data {json} NOT NULL,
      created_at {ts} NOT NULL,
      updated_at {ts} NOT NULL
    )`,
    `CREATE INDEX text_chat_sessions_organization ON text_chat_sessions (organization_id, workflow_id)`
  )
})
