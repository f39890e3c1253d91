import { TextChatRepo } from "@agentline/core/text-chat/TextChatRepo"
import { TextChatData } from "@agentline/core/text-chat/TextChatSession"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

/** A `text_chat_sessions` row. */
const Row = Schema.Struct({
  workflow_run_id: Columns.Int,
  organization_id: Columns.Int,
  workflow_id: Columns.Int,
  revision: Columns.Int,
  state: Schema.Literal("active", "completed"),
  data: Columns.Json(TextChatData),
  created_at: Columns.Ts,
  updated_at: Columns.Ts
})
const first = Columns.decodeFirst(Row)

export const layer = Layer.effect(
  TextChatRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const json = (data: TextChatData) => Columns.jsonParam(Schema.encodeSync(TextChatData)(data))
    return TextChatRepo.of({
      insert: (session) =>
        sql`INSERT INTO text_chat_sessions (workflow_run_id, organization_id, workflow_id, revision, state, data, created_at, updated_at)
            VALUES (${session.workflow_run_id}, ${session.organization_id}, ${session.workflow_id}, ${session.revision}, ${session.state},
              ${json(session.data)}, ${session.created_at}, ${session.created_at})
            ON CONFLICT DO NOTHING RETURNING *`.pipe(Effect.flatMap(first), StorageBoundary.orDie),
      find: (organizationId, runId) =>
        sql`SELECT * FROM text_chat_sessions WHERE organization_id = ${organizationId} AND workflow_run_id = ${runId}`
          .pipe(Effect.flatMap(first), StorageBoundary.orDie),
      // One statement: of two changes made from the same revision, one wins and the other finds no row.
      save: (runId, expectedRevision, change) =>
        sql`UPDATE text_chat_sessions SET data = ${json(change.data)}, state = ${change.state}, revision = revision + 1,
              updated_at = ${change.now}
            WHERE workflow_run_id = ${runId} AND revision = ${expectedRevision} RETURNING *`
          .pipe(Effect.flatMap(first), StorageBoundary.orDie)
    })
  })
)
