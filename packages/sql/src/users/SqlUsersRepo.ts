import { OrganizationId, UserId } from "@agentline/api/Ids"
import { Role } from "@agentline/api/users/User"
import { UsersRepo } from "@agentline/core/users/UsersRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

/** A `users` row. */
const UserRow = Schema.Struct({
  id: Columns.Id(UserId),
  organization_id: Columns.Id(OrganizationId),
  email: Schema.String,
  role: Role,
  must_change_password: Columns.Bool,
  password_hash: Schema.String,
  created_at: Columns.Ts,
  updated_at: Columns.Ts
})
const users = Columns.decodeRows(UserRow)
const firstUser = Columns.decodeFirst(UserRow)

/** A `sessions` row. */
const SessionRow = Schema.Struct({
  id: Columns.Int,
  user_id: Columns.Id(UserId),
  token_hash: Schema.String,
  expires_at: Columns.Ts
})
const firstSession = Columns.decodeFirst(SessionRow)
const singleSession = Columns.decodeSingle(SessionRow)

export const layer = Layer.effect(
  UsersRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return UsersRepo.of({
      findByEmail: (email) => sql`SELECT * FROM users WHERE email = ${email}`.pipe(Effect.flatMap(firstUser), StorageBoundary.orDie),
      findById: (id) => sql`SELECT * FROM users WHERE id = ${id}`.pipe(Effect.flatMap(firstUser), StorageBoundary.orDie),
      listByOrganization: (organizationId) =>
        sql`SELECT * FROM users WHERE organization_id = ${organizationId} ORDER BY id`.pipe(
          Effect.flatMap(users),
          StorageBoundary.orDie
        ),
      insert: (u) =>
        sql`INSERT INTO users (organization_id, email, password_hash, role, must_change_password, created_at, updated_at)
            VALUES (${u.organization_id}, ${u.email}, ${u.password_hash}, ${u.role}, ${Columns.boolParam(u.must_change_password)}, ${u.now}, ${u.now})
            ON CONFLICT (email) DO NOTHING
            RETURNING *`.pipe(Effect.flatMap(firstUser), StorageBoundary.orDie),
      setPassword: (id, passwordHash, mustChange, now) =>
        sql`UPDATE users SET password_hash = ${passwordHash}, must_change_password = ${Columns.boolParam(mustChange)}, updated_at = ${now}
            WHERE id = ${id}`.pipe(Effect.asVoid, StorageBoundary.orDie),
      insertSession: (s) =>
        sql`INSERT INTO sessions (user_id, token_hash, created_at, expires_at)
            VALUES (${s.user_id}, ${s.token_hash}, ${s.now}, ${s.expires_at}) RETURNING *`.pipe(
          Effect.flatMap(singleSession),
          StorageBoundary.orDie
        ),
      findSession: (tokenHash) =>
        sql`SELECT * FROM sessions WHERE token_hash = ${tokenHash}`.pipe(
          Effect.flatMap(firstSession),
          StorageBoundary.orDie
        ),
      deleteSession: (sessionId) => sql`DELETE FROM sessions WHERE id = ${sessionId}`.pipe(Effect.asVoid, StorageBoundary.orDie),
      deleteSessionsOfUser: (userId, exceptSessionId) =>
        (exceptSessionId === undefined
          ? sql`DELETE FROM sessions WHERE user_id = ${userId}`
          : sql`DELETE FROM sessions WHERE user_id = ${userId} AND id <> ${exceptSessionId}`).pipe(Effect.asVoid, StorageBoundary.orDie)
    })
  })
)
