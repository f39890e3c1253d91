import { Clock, Context, Effect, Option, Ref } from "effect"
import { OrganizationsRepo } from "../organizations/OrganizationsRepo.js"
import * as Permissions from "../organizations/Permissions.js"
import type { Principal } from "@agentline/api/Authentication"
import {
  EmailTaken,
  InvalidCredentials,
  LoginThrottled,
  OwnAccount,
  PasswordResetNeedsSession,
  UserDeactivated,
  UserNotFound,
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
import { Transactor } from "../Transactor.js"
import * as UserAccess from "./UserAccess.js"

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
    const transactor = yield* Transactor

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
      // Said only to whoever knows the password: the account exists, and who can let them back in.
      if (!user.value.is_active) return yield* new UserDeactivated()
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
      // Deactivating deletes the sessions; this also covers one that raced with it.
      if (Option.isNone(user) || !user.value.is_active) return yield* invalid
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

    const get = Effect.fn("Users.get")(function*(principal: Principal, userId: number) {
      const user = yield* users.find(principal.organizationId, userId)
      if (Option.isNone(user)) return yield* new UserNotFound({ userId })
      return publicUser(user.value)
    })

    /**
     * Changes a user's role or access under the organization's lock (`UserAccess.refusal` says what is
     * refused: the last active administrator, your own account). Deactivating and removing end the
     * user's sessions at once; their API keys are refused from then on (`ApiKeys`: within its cache's
     * second in other processes). `None` when the user was removed.
     */
    const changeAccess = Effect.fn("Users.changeAccess")(function*(principal: Principal, userId: number, change: UserAccess.Change) {
      return yield* transactor.withTransaction(Effect.gen(function*() {
        yield* users.lockOrganization(principal.organizationId)
        // The caller's role as it is now, under the lock: an administrator demoted a moment ago cannot go on.
        const actor = yield* users.find(principal.organizationId, principal.userId)
        if (Option.isNone(actor) || !actor.value.is_active || !Permissions.permits(actor.value.role, "manageUsers")) {
          return yield* Permissions.denial({ ...principal, role: Option.match(actor, { onNone: () => principal.role, onSome: (a) => a.role }) }, "manageUsers")
        }
        const found = yield* users.find(principal.organizationId, userId)
        if (Option.isNone(found)) return yield* new UserNotFound({ userId })
        const target = found.value
        const refused = UserAccess.refusal({
          actorId: principal.userId,
          target: { id: target.id, role: target.role, active: target.is_active },
          change,
          activeAdmins: yield* users.countActiveAdmins(principal.organizationId)
        })
        if (Option.isSome(refused)) return yield* refused.value
        const now = iso(yield* Clock.currentTimeMillis)
        switch (change._tag) {
          case "SetRole": {
            if (change.role !== target.role) yield* users.setRole(target.id, change.role, now)
            return Option.some(publicUser(change.role === target.role ? target : { ...target, role: change.role, updated_at: now }))
          }
          case "Deactivate": {
            yield* users.deleteSessionsOfUser(target.id)
            if (!target.is_active) return Option.some(publicUser(target))
            yield* users.setDeactivated(target.id, now, now)
            return Option.some(publicUser({ ...target, is_active: false, deactivated_at: now, updated_at: now }))
          }
          case "Reactivate": {
            if (target.is_active) return Option.some(publicUser(target))
            yield* users.setDeactivated(target.id, null, now)
            return Option.some(publicUser({ ...target, is_active: true, deactivated_at: null, updated_at: now }))
          }
          case "Remove": {
            yield* users.remove(target.id, now)
            return Option.none<User>()
          }
        }
      }))
    })

    /**
     * Gives a user a new temporary password, generated here and returned once: it must be changed at the
     * next login (the first-login gate), and the user's sessions end. It needs a login session, as a
     * password change does: a program's API key must not be able to hand out a way into someone's account.
     */
    const resetPassword = Effect.fn("Users.resetPassword")(function*(principal: Principal, userId: number) {
      if (principal.via._tag !== "Session") return yield* new PasswordResetNeedsSession()
      if (userId === principal.userId) return yield* new OwnAccount({ change: "resetPassword" })
      const found = yield* users.find(principal.organizationId, userId)
      if (Option.isNone(found)) return yield* new UserNotFound({ userId })
      const temporaryPassword = Passwords.randomToken("", 12)
      const now = iso(yield* Clock.currentTimeMillis)
      const hash = yield* Passwords.hash(temporaryPassword)
      yield* transactor.withTransaction(Effect.zipRight(
        users.setPassword(found.value.id, hash, true, now),
        users.deleteSessionsOfUser(found.value.id)
      ))
      return {
        user: publicUser({ ...found.value, must_change_password: true, updated_at: now }),
        temporary_password: temporaryPassword
      }
    })

    return { create, list, get, changeAccess, resetPassword, login, logout, authenticateSession, me, changePassword, findByEmail: users.findByEmail } as const
  })
}) {}

// A valid scrypt hash of a random password, used only to spend the same time on unknown emails.
const DUMMY_HASH =
  "scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$0Yy7Aqo0Bv3cGJwKxkf2GkB2xR1Pq9b0w4H7m3J3JXo="
