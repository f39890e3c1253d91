import { Clock, Effect, Option, Ref } from "effect"
import { Conflict, Forbidden, TooManyRequests, Unauthorized } from "../Errors.js"
import { OrganizationsRepo } from "../organizations/OrganizationsRepo.js"
import type { Principal } from "../organizations/Principal.js"
import * as LoginThrottle from "./LoginThrottle.js"
import * as Passwords from "./Passwords.js"
import type { Role, User } from "./User.js"
import { type StoredUser, UsersRepo } from "./UsersRepo.js"

/** How long a login session (bearer token) lasts. */
export const SESSION_TTL_MILLIS = 24 * 60 * 60 * 1000

const publicUser = ({ password_hash: _, ...user }: StoredUser): User => user

const iso = (millis: number) => new Date(millis).toISOString()

export class Users extends Effect.Service<Users>()("@agentline/core/Users", {
  effect: Effect.gen(function*() {
    const users = yield* UsersRepo
    const organizations = yield* OrganizationsRepo
    const throttle = yield* Ref.make<LoginThrottle.ThrottleState>(new Map())

    /**
     * Creates a user in the named organization (created when new). Created users must change the
     * password at first login: an administrator chose it, so it is not theirs yet.
     */
    const create = Effect.fn("Users.create")(function*(input: {
      readonly email: string
      readonly password: string
      readonly organization: { readonly name: string } | { readonly id: number }
      readonly role: Role
      readonly mustChangePassword?: boolean
    }) {
      const now = iso(yield* Clock.currentTimeMillis)
      const organizationId = "id" in input.organization
        ? input.organization.id
        : (yield* organizations.findOrCreate(input.organization.name, now)).id
      const inserted = yield* users.insert({
        organization_id: organizationId,
        email: input.email.trim().toLowerCase(),
        password_hash: yield* Passwords.hash(input.password),
        role: input.role,
        must_change_password: input.mustChangePassword ?? true,
        now
      })
      return yield* Option.match(inserted, {
        onNone: () => Effect.fail(new Conflict({ detail: `A user with email '${input.email}' already exists` })),
        onSome: (user) => Effect.succeed(publicUser(user))
      })
    })

    const login = Effect.fn("Users.login")(function*(emailInput: string, password: string, address: string) {
      const email = emailInput.trim().toLowerCase()
      const now = yield* Clock.currentTimeMillis
      const wait = LoginThrottle.retryAfter(yield* Ref.get(throttle), email, address, now)
      if (wait > 0) {
        return yield* new TooManyRequests({
          detail: `Too many failed login attempts; try again in ${Math.ceil(wait / 1000)} seconds`
        })
      }
      const user = yield* users.findByEmail(email)
      // Verify against a dummy hash when the user is unknown, so timing does not reveal which emails exist.
      const ok = yield* Passwords.verify(password, Option.match(user, { onNone: () => DUMMY_HASH, onSome: (u) => u.password_hash }))
      if (!ok || Option.isNone(user)) {
        yield* Ref.update(throttle, (s) => LoginThrottle.recordFailure(s, email, address, now))
        return yield* new Unauthorized({ detail: "Invalid email or password" })
      }
      yield* Ref.update(throttle, (s) => LoginThrottle.recordSuccess(s, email))
      const token = Passwords.randomToken("als_")
      const expiresAt = iso(now + SESSION_TTL_MILLIS)
      yield* users.insertSession({ user_id: user.value.id, token_hash: Passwords.sha256(token), now: iso(now), expires_at: expiresAt })
      return { token, token_type: "bearer" as const, expires_at: expiresAt, user: publicUser(user.value) }
    })

    /** Resolves a bearer token of a login session to its principal. */
    const authenticateSession = Effect.fn("Users.authenticateSession")(function*(token: string) {
      const invalid = new Unauthorized({ detail: "Invalid or expired token; log in again at POST /api/v1/auth/login" })
      if (!token.startsWith("als_")) return yield* invalid
      const session = yield* users.findSession(Passwords.sha256(token))
      if (Option.isNone(session)) return yield* invalid
      const now = yield* Clock.currentTimeMillis
      if (Date.parse(session.value.expires_at) <= now) return yield* invalid
      const user = yield* users.findById(session.value.user_id)
      if (Option.isNone(user)) return yield* invalid
      const principal: Principal = {
        organizationId: user.value.organization_id,
        userId: user.value.id,
        email: user.value.email,
        role: user.value.role,
        via: { _tag: "Session", sessionId: session.value.id, mustChangePassword: user.value.must_change_password }
      }
      return principal
    })

    const me = Effect.fn("Users.me")(function*(principal: Principal) {
      const user = yield* users.findById(principal.userId)
      return yield* Option.match(user, {
        onNone: () => Effect.fail(new Unauthorized({ detail: "The user of these credentials no longer exists" })),
        onSome: (u) => Effect.succeed(publicUser(u))
      })
    })

    /** Changing the password lifts the first-login gate and ends the user's other sessions. */
    const changePassword = Effect.fn("Users.changePassword")(
      function*(principal: Principal, currentPassword: string, newPassword: string) {
        const user = yield* users.findById(principal.userId)
        if (Option.isNone(user)) return yield* new Unauthorized({ detail: "The user of these credentials no longer exists" })
        if (!(yield* Passwords.verify(currentPassword, user.value.password_hash))) {
          return yield* new Forbidden({ detail: "current_password is not correct" })
        }
        if (currentPassword === newPassword) {
          return yield* new Conflict({ detail: "new_password must differ from the current password" })
        }
        const now = iso(yield* Clock.currentTimeMillis)
        yield* users.setPassword(user.value.id, yield* Passwords.hash(newPassword), false, now)
        yield* users.deleteSessionsOfUser(
          user.value.id,
          principal.via._tag === "Session" ? principal.via.sessionId : undefined
        )
        return publicUser({ ...user.value, must_change_password: false, updated_at: now })
      }
    )

    const list = Effect.fn("Users.list")(function*(principal: Principal) {
      return (yield* users.listByOrganization(principal.organizationId)).map(publicUser)
    })

    return { create, list, login, authenticateSession, me, changePassword, findByEmail: users.findByEmail } as const
  })
}) {}

// A valid scrypt hash of a random password, used only to spend the same time on unknown emails.
const DUMMY_HASH =
  "scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$0Yy7Aqo0Bv3cGJwKxkf2GkB2xR1Pq9b0w4H7m3J3JXo="
