import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/** Stored credentials (the webhook node's `credential_uuid`): the data sealed, never returned. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE credentials (
      uuid TEXT PRIMARY KEY,
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      name TEXT NOT NULL,
      description TEXT,
      credential_type TEXT NOT NULL CHECK (credential_type IN ('none', 'api_key', 'bearer_token', 'basic_auth', 'custom_header')),
      sealed_data TEXT NOT NULL,
      created_at {ts} NOT NULL,
      updated_at {ts}
    )`,
    `CREATE INDEX credentials_organization ON credentials (organization_id, created_at)`
  )
})
