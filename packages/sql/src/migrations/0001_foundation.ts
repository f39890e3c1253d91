import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE organizations (
      id {id},
      name TEXT NOT NULL UNIQUE,
      concurrent_call_limit INTEGER NOT NULL DEFAULT 10,
      created_at {ts} NOT NULL
    )`,
    `CREATE TABLE users (
      id {id},
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      email TEXT NOT NULL UNIQUE,
      password_hash TEXT NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
      must_change_password {bool} NOT NULL DEFAULT {true},
      created_at {ts} NOT NULL,
      updated_at {ts} NOT NULL
    )`,
    `CREATE TABLE sessions (
      id {id},
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      token_hash TEXT NOT NULL UNIQUE,
      created_at {ts} NOT NULL,
      expires_at {ts} NOT NULL
    )`,
    `CREATE TABLE api_keys (
      id {id},
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      created_by INTEGER NOT NULL REFERENCES users(id),
      name TEXT NOT NULL,
      key_hash TEXT NOT NULL UNIQUE,
      key_prefix TEXT NOT NULL,
      is_active {bool} NOT NULL DEFAULT {true},
      created_at {ts} NOT NULL,
      last_used_at {ts},
      archived_at {ts}
    )`,
    `CREATE INDEX api_keys_organization ON api_keys (organization_id)`
  )
})
