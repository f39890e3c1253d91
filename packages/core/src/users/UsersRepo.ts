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

/**
 * Storage port for users and their login sessions. A removed user is never found again (their row stays
 * for what refers to it, such as the API keys and recordings they made; their email is freed).
 */
export class UsersRepo extends Context.Tag("@agentline/core/UsersRepo")<
  UsersRepo,
  {
    readonly findByEmail: (email: string) => Effect.Effect<Option.Option<StoredUser>>
    readonly findById: (id: number) => Effect.Effect<Option.Option<StoredUser>>
    /** The user, when they are in the organization. */
    readonly find: (organizationId: number, id: number) => Effect.Effect<Option.Option<StoredUser>>
    readonly listByOrganization: (organizationId: number) => Effect.Effect<ReadonlyArray<StoredUser>>
    /**
     * Serializes changes of the organization's users' access until the transaction ends (call it
     * inside `Transactor.withTransaction`), so two administrators cannot each demote the other.
     */
    readonly lockOrganization: (organizationId: number) => Effect.Effect<void>
    readonly countActiveAdmins: (organizationId: number) => Effect.Effect<number>
    readonly setRole: (id: number, role: Role, now: string) => Effect.Effect<void>
    /** `deactivatedAt` null reactivates. */
    readonly setDeactivated: (id: number, deactivatedAt: string | null, now: string) => Effect.Effect<void>
    /** Removes the user: email freed, password unusable, sessions deleted, API keys archived. */
    readonly remove: (id: number, now: string) => Effect.Effect<void>
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
