import { Clock, Context, Effect, Option, Ref } from "effect"
import { OrganizationsRepo } from "../organizations/OrganizationsRepo.js"
import type { Principal } from "@agentline/api/Authentication"
import {
  EmailTaken,
  InvalidCredentials,
  LoginThrottled,
  LogoutNeedsSession,
  PasswordChangeNeedsSession,
  PasswordUnchanged,
  SessionInvalid,
  UserNoLongerExists,
  WrongCurrentPassword
} from "./Errors.js"
import * as LoginThrottle from "./LoginThrottle.js"
import * as Passwords from "./Passwords.js"
import type { Role, User } from "@agentline/api/users/User"
import { type StoredUser, UsersRepo } from "./UsersRepo.js"
import { iso } from "../Time.js"

/** How long a login session (bearer token) lasts. */
export const SESSION_TTL_MILLIS = 24 * 60 * 60 * 1000

const publicUser = ({ password_hash: _, ...user }: StoredUser): User => user

/** The password-guess limits (`LoginThrottle.defaultPolicy` unless the server configures others). */
export class LoginPolicy extends Context.Reference<LoginPolicy>()("@agentline/core/LoginPolicy", {
  defaultValue: (): LoginThrottle.ThrottlePolicy => LoginThrottle.defaultPolicy
}) {}

export class Users extends Effect.Service<Users>()("@agentline/core/Users", {
  effect: Effect.gen(function*() {
    const users = yield* UsersRepo
    const organizations = yield* OrganizationsRepo

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
        onNone: () => Effect.fail(new EmailTaken({ email: input.email })),
        onSome: (user) => Effect.succeed(publicUser(user))
      })
    })

    const policy = yield* LoginPolicy
    const throttle = yield* Ref.make(LoginThrottle.emptyState)

    /**
     * One password check under the throttle (login and password change share it: both are guesses at
     * the account's password). The attempt is counted before `check` hashes anything and taken back
     * when `check` says the password was right; at the limit the answer is 429 without hashing.
     */
    const throttled = <A, E>(
      account: string,
      address: string,
      check: Effect.Effect<A, E>,
      isRight: (result: A) => boolean
    ) =>
      Effect.gen(function*() {
        const attempt: LoginThrottle.Attempt = { account, address, at: yield* Clock.currentTimeMillis }
        const refused = yield* Ref.modify(throttle, (state) => {
          const started = LoginThrottle.begin(state, attempt, policy)
          return [started.retryAfterMillis, started.state] as const
        })
        if (refused > 0) {
          return yield* new LoginThrottled({ retryAfterSeconds: Math.ceil(refused / 1000) })
        }
        const result = yield* check
        if (isRight(result)) yield* Ref.update(throttle, (state) => LoginThrottle.succeeded(state, attempt))
        return result
      })

    const login = Effect.fn("Users.login")(function*(emailInput: string, password: string, address: string) {
      const email = emailInput.trim().toLowerCase()
      const user = yield* throttled(
        email,
        address,
        Effect.flatMap(users.findByEmail(email), (found) =>
          // Verify against a dummy hash when the user is unknown, so timing does not reveal which emails exist.
          Effect.map(
            Passwords.verify(password, Option.match(found, { onNone: () => DUMMY_HASH, onSome: (u) => u.password_hash })),
            (ok) => ok ? found : Option.none()
          )),
        Option.isSome
      )
      if (Option.isNone(user)) return yield* new InvalidCredentials()
      const now = yield* Clock.currentTimeMillis
      const token = Passwords.randomToken("als_")
      const expiresAt = iso(now + SESSION_TTL_MILLIS)
      yield* users.insertSession({ user_id: user.value.id, token_hash: Passwords.sha256(token), now: iso(now), expires_at: expiresAt })
      return { token, token_type: "bearer" as const, expires_at: expiresAt, user: publicUser(user.value) }
    })

    /** Resolves a bearer token of a login session to its principal. */
    const authenticateSession = Effect.fn("Users.authenticateSession")(function*(token: string) {
      const invalid = new SessionInvalid()
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
        onNone: () => Effect.fail(new UserNoLongerExists({ userId: principal.userId })),
        onSome: (u) => Effect.succeed(publicUser(u))
      })
    })

    /**
     * Changing the password lifts the first-login gate and ends the user's other sessions. It needs a
     * login session: an API key is a credential for programs, and a leaked one must not be enough to
     * take over its owner's account. Wrong current passwords count against the login throttle.
     */
    const changePassword = Effect.fn("Users.changePassword")(
      function*(principal: Principal, currentPassword: string, newPassword: string, address: string) {
        if (principal.via._tag !== "Session") {
          return yield* new PasswordChangeNeedsSession()
        }
        const user = yield* users.findById(principal.userId)
        if (Option.isNone(user)) return yield* new UserNoLongerExists({ userId: principal.userId })
        const right = yield* throttled(user.value.email, address, Passwords.verify(currentPassword, user.value.password_hash), (ok) => ok)
        if (!right) return yield* new WrongCurrentPassword()
        if (currentPassword === newPassword) {
          return yield* new PasswordUnchanged()
        }
        const now = iso(yield* Clock.currentTimeMillis)
        yield* users.setPassword(user.value.id, yield* Passwords.hash(newPassword), false, now)
        yield* users.deleteSessionsOfUser(user.value.id, principal.via.sessionId)
        return publicUser({ ...user.value, must_change_password: false, updated_at: now })
      }
    )

    /** Ends the caller's login session: its token (bearer or dashboard cookie) stops working at once. */
    const logout = Effect.fn("Users.logout")(function*(principal: Principal) {
      if (principal.via._tag !== "Session") return yield* new LogoutNeedsSession()
      yield* users.deleteSession(principal.via.sessionId)
    })

    const list = Effect.fn("Users.list")(function*(principal: Principal) {
      return (yield* users.listByOrganization(principal.organizationId)).map(publicUser)
    })

    return { create, list, login, logout, authenticateSession, me, changePassword, findByEmail: users.findByEmail } as const
  })
}) {}

// A valid scrypt hash of a random password, used only to spend the same time on unknown emails.
const DUMMY_HASH =
  "scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$0Yy7Aqo0Bv3cGJwKxkf2GkB2xR1Pq9b0w4H7m3J3JXo="
