import { type StoredSession, type StoredUser, UsersRepo } from "@agentline/core/users/UsersRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import * as Columns from "../Columns.js"

const toUser = (row: any): StoredUser => ({
  id: Columns.int(row.id),
  organization_id: Columns.int(row.organization_id),
  email: row.email,
  role: row.role,
  must_change_password: Columns.bool(row.must_change_password),
  password_hash: row.password_hash,
  created_at: Columns.ts(row.created_at),
  updated_at: Columns.ts(row.updated_at)
})

const toSession = (row: any): StoredSession => ({
  id: Columns.int(row.id),
  user_id: Columns.int(row.user_id),
  token_hash: row.token_hash,
  expires_at: Columns.ts(row.expires_at)
})

export const layer = Layer.effect(
  UsersRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const firstUser = (rows: ReadonlyArray<any>) => Option.map(Option.fromNullable(rows[0]), toUser)

    return UsersRepo.of({
      findByEmail: (email) => sql`SELECT * FROM users WHERE email = ${email}`.pipe(Effect.map(firstUser), Effect.orDie),
      findById: (id) => sql`SELECT * FROM users WHERE id = ${id}`.pipe(Effect.map(firstUser), Effect.orDie),
      listByOrganization: (organizationId) =>
        sql`SELECT * FROM users WHERE organization_id = ${organizationId} ORDER BY id`.pipe(
          Effect.map((rows) => rows.map(toUser)),
          Effect.orDie
        ),
      insert: (u) =>
        sql`INSERT INTO users (organization_id, email, password_hash, role, must_change_password, created_at, updated_at)
            VALUES (${u.organization_id}, ${u.email}, ${u.password_hash}, ${u.role}, ${Columns.boolParam(u.must_change_password)}, ${u.now}, ${u.now})
            ON CONFLICT (email) DO NOTHING
            RETURNING *`.pipe(Effect.map(firstUser), Effect.orDie),
      setPassword: (id, passwordHash, mustChange, now) =>
        sql`UPDATE users SET password_hash = ${passwordHash}, must_change_password = ${Columns.boolParam(mustChange)}, updated_at = ${now}
            WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
      insertSession: (s) =>
        sql`INSERT INTO sessions (user_id, token_hash, created_at, expires_at)
            VALUES (${s.user_id}, ${s.token_hash}, ${s.now}, ${s.expires_at}) RETURNING *`.pipe(
          Effect.map((rows) => toSession(rows[0])),
          Effect.orDie
        ),
      findSession: (tokenHash) =>
        sql`SELECT * FROM sessions WHERE token_hash = ${tokenHash}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toSession)),
          Effect.orDie
        ),
      deleteSessionsOfUser: (userId, exceptSessionId) =>
        (exceptSessionId === undefined
          ? sql`DELETE FROM sessions WHERE user_id = ${userId}`
          : sql`DELETE FROM sessions WHERE user_id = ${userId} AND id <> ${exceptSessionId}`).pipe(Effect.asVoid, Effect.orDie)
    })
  })
)
