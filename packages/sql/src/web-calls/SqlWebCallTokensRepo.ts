import { RunId } from "@agentline/api/Ids"
import { WebCallTokensRepo } from "@agentline/core/web-calls/WebCallTokensRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as StorageBoundary from "../StorageBoundary.js"

export const layer = Layer.effect(
  WebCallTokensRepo,
  Effect.map(SqlClient.SqlClient, (sql) =>
    WebCallTokensRepo.of({
      insert: (t) =>
        Effect.zipRight(
          // Tokens live a minute: the expired ones go as new ones come.
          sql`DELETE FROM web_call_tokens WHERE expires_at < ${t.now}`,
          sql`INSERT INTO web_call_tokens ${
            sql.insert({
              token_hash: t.tokenHash,
              workflow_run_id: t.runId,
              organization_id: t.organizationId,
              created_at: t.now,
              expires_at: t.expiresAt
            })
          }`
        ).pipe(Effect.asVoid, StorageBoundary.orDie),
      // One statement: of two sockets presenting the same token, one gets the run.
      redeem: (t) =>
        sql<{ workflow_run_id: number }>`UPDATE web_call_tokens SET used_at = ${t.now}
            WHERE token_hash = ${t.tokenHash} AND used_at IS NULL AND expires_at > ${t.now}
            RETURNING workflow_run_id`.pipe(
          Effect.map((rows) => (rows.length === 1 ? Option.some(RunId.make(Number(rows[0]!.workflow_run_id))) : Option.none())),
          StorageBoundary.orDie
        )
    }))
)
