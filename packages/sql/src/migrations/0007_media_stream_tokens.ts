import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * The tokens of media stream URLs: a provider connects an answered call's audio to
 * `/telephony/media/{provider}/{token}`. Only a hash is stored; a token works once (`used_at`) and
 * until it expires. (0006 is the dispatcher's attempt durations.)
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE media_stream_tokens (
      token_hash TEXT PRIMARY KEY,
      attempt_id INTEGER NOT NULL,
      provider TEXT NOT NULL,
      created_at {ts} NOT NULL,
      expires_at {ts} NOT NULL,
      used_at {ts}
    )`,
    `CREATE INDEX media_stream_tokens_expiry ON media_stream_tokens (expires_at)`
  )
})
