import { Context, type Effect, type Option } from "effect"
import type { Role, User } from "@agentline/api/users/User"

export interface StoredUser extends User {
  readonly password_hash: string
}

export interface StoredSession {
  readonly id: number
  readonly user_id: number
  readonly token_hash: string
  readonly expires_at: string
}

/** Storage port for users and their login sessions. */
export class UsersRepo extends Context.Tag("@agentline/core/UsersRepo")<
  UsersRepo,
  {
    readonly findByEmail: (email: string) => Effect.Effect<Option.Option<StoredUser>>
    readonly findById: (id: number) => Effect.Effect<Option.Option<StoredUser>>
    readonly listByOrganization: (organizationId: number) => Effect.Effect<ReadonlyArray<StoredUser>>
    /** `None` when the email is taken. */
    readonly insert: (user: {
      readonly organization_id: number
      readonly email: string
      readonly password_hash: string
      readonly role: Role
      readonly must_change_password: boolean
      readonly now: string
    }) => Effect.Effect<Option.Option<StoredUser>>
    readonly setPassword: (
      id: number,
      passwordHash: string,
      mustChangePassword: boolean,
      now: string
    ) => Effect.Effect<void>
    readonly insertSession: (
      session: { readonly user_id: number; readonly token_hash: string; readonly now: string; readonly expires_at: string }
    ) => Effect.Effect<StoredSession>
    readonly findSession: (tokenHash: string) => Effect.Effect<Option.Option<StoredSession>>
    readonly deleteSession: (sessionId: number) => Effect.Effect<void>
    readonly deleteSessionsOfUser: (userId: number, exceptSessionId?: number) => Effect.Effect<void>
  }
>() {}
