import { AttemptId } from "@agentline/api/Ids"
import { MediaTokensRepo } from "@agentline/core/media/MediaTokensRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as StorageBoundary from "../StorageBoundary.js"

export const layer = Layer.effect(
  MediaTokensRepo,
  Effect.map(SqlClient.SqlClient, (sql) => {
    // Expired tokens are deleted at most once a minute (a busy dispatcher issues one per call).
    let sweptAt = 0
    const sweep = (now: string): Effect.Effect<void> => {
      const at = Date.parse(now)
      if (at - sweptAt < 60_000) return Effect.void
      sweptAt = at
      return sql`DELETE FROM media_stream_tokens WHERE expires_at < ${now}`.pipe(Effect.asVoid, StorageBoundary.orDie)
    }
    return MediaTokensRepo.of({
      insert: (tokens) =>
        tokens.length === 0 ? Effect.void : Effect.zipRight(
          sweep(tokens[0]!.now),
          sql`INSERT INTO media_stream_tokens ${
            sql.insert(tokens.map((t) => ({
              token_hash: t.tokenHash,
              attempt_id: t.attemptId,
              provider: t.provider,
              created_at: t.now,
              expires_at: t.expiresAt
            })))
          }`.pipe(Effect.asVoid, StorageBoundary.orDie)
        ),
      // One statement: of two connections presenting the same token, one gets the attempt.
      redeem: (t) =>
        sql<{ attempt_id: number }>`UPDATE media_stream_tokens SET used_at = ${t.now}
            WHERE token_hash = ${t.tokenHash} AND provider = ${t.provider} AND used_at IS NULL AND expires_at > ${t.now}
            RETURNING attempt_id`.pipe(
          Effect.map((rows) => (rows.length === 1 ? Option.some(AttemptId.make(Number(rows[0]!.attempt_id))) : Option.none())),
          StorageBoundary.orDie
        )
    })
  })
)
