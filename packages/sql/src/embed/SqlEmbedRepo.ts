import { EmbedRepo } from "@agentline/core/embed/EmbedRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

/** An `embed_tokens` row. */
const TokenRow = Schema.Struct({
  id: Columns.Int,
  token: Schema.String,
  organization_id: Columns.Int,
  workflow_id: Columns.Int,
  created_by: Schema.NullOr(Columns.Int),
  allowed_origins: Columns.Json(Schema.Array(Schema.String)),
  settings: Schema.NullOr(Columns.JsonObject),
  usage_count: Columns.Int,
  usage_limit: Schema.NullOr(Columns.Int),
  expires_at: Schema.NullOr(Columns.Ts),
  is_active: Columns.Bool,
  created_at: Columns.Ts,
  updated_at: Columns.Ts
})
const firstToken = Columns.decodeFirst(TokenRow)

/** An `embed_sessions` row. */
const SessionRow = Schema.Struct({
  id: Columns.Int,
  embed_token_id: Columns.Int,
  organization_id: Columns.Int,
  workflow_id: Columns.Int,
  definition_id: Columns.Int,
  workflow_run_id: Columns.Int,
  modality: Schema.Literal("voice", "text"),
  origin: Schema.NullOr(Schema.String),
  client_address: Schema.NullOr(Schema.String),
  user_agent: Schema.NullOr(Schema.String),
  created_at: Columns.Ts,
  expires_at: Columns.Ts,
  attached_at: Schema.NullOr(Columns.Ts),
  ended_at: Schema.NullOr(Columns.Ts)
})
const firstSession = Columns.decodeFirst(SessionRow)
const singleSession = Columns.decodeSingle(SessionRow)

export const layer = Layer.effect(
  EmbedRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const active = Columns.boolParam(true)

    return EmbedRepo.of({
      findActive: (organizationId, workflowId) =>
        sql`SELECT * FROM embed_tokens WHERE organization_id = ${organizationId} AND workflow_id = ${workflowId} AND is_active = ${active}`
          .pipe(Effect.flatMap(firstToken), StorageBoundary.orDie),
      insert: (input) =>
        sql`INSERT INTO embed_tokens (token, organization_id, workflow_id, created_by, allowed_origins, settings, usage_limit, expires_at,
              is_active, created_at, updated_at)
            VALUES (${input.token}, ${input.organization_id}, ${input.workflow_id}, ${input.created_by},
              ${Columns.jsonParam(input.fields.allowed_origins)}, ${Columns.jsonParam(input.fields.settings)}, ${input.fields.usage_limit},
              ${input.fields.expires_at}, ${active}, ${input.now}, ${input.now})
            ON CONFLICT DO NOTHING RETURNING *`.pipe(Effect.flatMap(firstToken), StorageBoundary.orDie),
      update: (id, fields, now) =>
        sql`UPDATE embed_tokens SET allowed_origins = ${Columns.jsonParam(fields.allowed_origins)}, settings = ${Columns.jsonParam(fields.settings)},
              usage_limit = ${fields.usage_limit}, expires_at = ${fields.expires_at}, updated_at = ${now}
            WHERE id = ${id} AND is_active = ${active} RETURNING *`.pipe(Effect.flatMap(firstToken), StorageBoundary.orDie),
      revoke: (organizationId, workflowId, now) =>
        sql`UPDATE embed_tokens SET is_active = ${Columns.boolParam(false)}, revoked_at = ${now}, updated_at = ${now}
            WHERE organization_id = ${organizationId} AND workflow_id = ${workflowId} AND is_active = ${active} RETURNING *`
          .pipe(Effect.flatMap(firstToken), StorageBoundary.orDie),
      findByToken: (token) => sql`SELECT * FROM embed_tokens WHERE token = ${token}`.pipe(Effect.flatMap(firstToken), StorageBoundary.orDie),
      // One statement: parallel sessions cannot all pass a limit that only one of them fits under.
      reserveUse: (tokenId) =>
        sql`UPDATE embed_tokens SET usage_count = usage_count + 1
            WHERE id = ${tokenId} AND (usage_limit IS NULL OR usage_count < usage_limit) RETURNING id`.pipe(
          Effect.map((rows) => rows.length === 1),
          StorageBoundary.orDie
        ),
      insertSession: (session) =>
        sql`INSERT INTO embed_sessions (token_hash, embed_token_id, organization_id, workflow_id, definition_id, workflow_run_id, modality,
              origin, client_address, user_agent, created_at, expires_at)
            VALUES (${session.token_hash}, ${session.embed_token_id}, ${session.organization_id}, ${session.workflow_id},
              ${session.definition_id}, ${session.workflow_run_id}, ${session.modality}, ${session.origin}, ${session.client_address},
              ${session.user_agent}, ${session.created_at}, ${session.expires_at})
            RETURNING *`.pipe(Effect.flatMap(singleSession), StorageBoundary.orDie),
      findSession: (tokenHash) =>
        sql`SELECT * FROM embed_sessions WHERE token_hash = ${tokenHash}`.pipe(Effect.flatMap(firstSession), StorageBoundary.orDie),
      markAttached: (sessionId, now) =>
        sql`UPDATE embed_sessions SET attached_at = ${now} WHERE id = ${sessionId} AND attached_at IS NULL`.pipe(Effect.asVoid, StorageBoundary.orDie),
      markEnded: (sessionId, now) =>
        sql`UPDATE embed_sessions SET ended_at = ${now} WHERE id = ${sessionId} AND ended_at IS NULL`.pipe(Effect.asVoid, StorageBoundary.orDie)
    })
  })
)
