import { OrganizationId, UserId } from "@agentline/api/Ids"
import { Role } from "@agentline/api/users/User"
import { type StoredUser, UsersRepo } from "@agentline/core/users/UsersRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
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
  deactivated_at: Schema.NullOr(Columns.Ts),
  created_at: Columns.Ts,
  updated_at: Columns.Ts
})
const stored = (row: typeof UserRow.Type): StoredUser => ({ ...row, is_active: row.deactivated_at === null })
const decodeUsers = Columns.decodeRows(UserRow)
const users = (rows: ReadonlyArray<unknown>) => Effect.map(decodeUsers(rows), (decoded) => decoded.map(stored))
const decodeFirstUser = Columns.decodeFirst(UserRow)
const firstUser = (rows: ReadonlyArray<unknown>) => Effect.map(decodeFirstUser(rows), Option.map(stored))
const count = Columns.decodeSingle(Schema.Struct({ n: Columns.Int }))

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
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    return UsersRepo.of({
      findByEmail: (email) =>
        sql`SELECT * FROM users WHERE email = ${email} AND removed_at IS NULL`.pipe(Effect.flatMap(firstUser), StorageBoundary.orDie),
      findById: (id) => sql`SELECT * FROM users WHERE id = ${id} AND removed_at IS NULL`.pipe(Effect.flatMap(firstUser), StorageBoundary.orDie),
      find: (organizationId, id) =>
        sql`SELECT * FROM users WHERE id = ${id} AND organization_id = ${organizationId} AND removed_at IS NULL`.pipe(
          Effect.flatMap(firstUser),
          StorageBoundary.orDie
        ),
      // SQLite serializes writers; `NO KEY` so the lock never blocks other transactions' foreign-key checks.
      lockOrganization: (organizationId) =>
        (isPg ? sql`SELECT id FROM organizations WHERE id = ${organizationId} FOR NO KEY UPDATE` : Effect.succeed([])).pipe(
          Effect.asVoid,
          StorageBoundary.orDie
        ),
      countActiveAdmins: (organizationId) =>
        sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM users WHERE organization_id = ${organizationId} AND role = 'admin'
            AND deactivated_at IS NULL AND removed_at IS NULL`.pipe(
          Effect.flatMap(count),
          Effect.map(({ n }) => n),
          StorageBoundary.orDie
        ),
      setRole: (id, role, now) =>
        sql`UPDATE users SET role = ${role}, updated_at = ${now} WHERE id = ${id}`.pipe(Effect.asVoid, StorageBoundary.orDie),
      setDeactivated: (id, deactivatedAt, now) =>
        sql`UPDATE users SET deactivated_at = ${deactivatedAt}, updated_at = ${now} WHERE id = ${id}`.pipe(Effect.asVoid, StorageBoundary.orDie),
      remove: (id, now) =>
        sql.withTransaction(Effect.gen(function*() {
          // The email becomes one no person has (`.invalid` is reserved, RFC 2606), so it can be used again;
          // "!" is no scrypt hash, so no password ever matches.
          yield* sql`UPDATE users SET email = ${`removed-user-${id}@removed.invalid`}, password_hash = '!',
              removed_at = ${now}, updated_at = ${now} WHERE id = ${id}`
          yield* sql`DELETE FROM sessions WHERE user_id = ${id}`
          yield* sql`UPDATE api_keys SET is_active = ${Columns.boolParam(false)}, archived_at = ${now}
              WHERE created_by = ${id} AND is_active`
        })).pipe(Effect.asVoid, StorageBoundary.orDie),
      listByOrganization: (organizationId) =>
        sql`SELECT * FROM users WHERE organization_id = ${organizationId} AND removed_at IS NULL ORDER BY id`.pipe(
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
