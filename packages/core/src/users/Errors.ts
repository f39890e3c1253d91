/** What can go wrong with users, logins and sessions. */
import { Schema } from "effect"

export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", { email: Schema.String }) {
  override get message() {
    return `A user with email '${this.email}' already exists`
  }
}

/** Too many failed password attempts for this account or from this address; allowed again after the wait. */
export class LoginThrottled extends Schema.TaggedError<LoginThrottled>()("LoginThrottled", { retryAfterSeconds: Schema.Number }) {
  override get message() {
    return `Too many failed password attempts for this account or from this address; ` +
      `try again in ${this.retryAfterSeconds} seconds`
  }
}

/** Wrong email or password (which one is not said). */
export class InvalidCredentials extends Schema.TaggedError<InvalidCredentials>()("InvalidCredentials", {}) {
  override get message() {
    return "Invalid email or password"
  }
}

/** A login token that is malformed, unknown or expired. */
export class SessionInvalid extends Schema.TaggedError<SessionInvalid>()("SessionInvalid", {}) {
  override get message() {
    return "Invalid or expired token; log in again"
  }
}

/** The credentials are valid but their user has been deleted since. */
export class UserNoLongerExists extends Schema.TaggedError<UserNoLongerExists>()("UserNoLongerExists", {
  userId: Schema.Number
}) {
  override get message() {
    return "The user of these credentials no longer exists"
  }
}

export class WrongCurrentPassword extends Schema.TaggedError<WrongCurrentPassword>()("WrongCurrentPassword", {}) {
  override get message() {
    return "current_password is not correct"
  }
}

export class PasswordUnchanged extends Schema.TaggedError<PasswordUnchanged>()("PasswordUnchanged", {}) {
  override get message() {
    return "new_password must differ from the current password"
  }
}

/** A password is changed from a login session only: a leaked API key must not take over its owner's account. */
export class LogoutNeedsSession extends Schema.TaggedError<LogoutNeedsSession>()("LogoutNeedsSession", {}) {
  override get message() {
    return "Logging out ends a login session; an API key has none (archive the key instead)"
  }
}

export class PasswordChangeNeedsSession extends Schema.TaggedError<PasswordChangeNeedsSession>()("PasswordChangeNeedsSession", {}) {
  override get message() {
    return "Changing a password needs a login session; API keys cannot change passwords"
  }
}

/** No such user in the caller's organization (another organization's users are not found either). */
export class UserNotFound extends Schema.TaggedError<UserNotFound>()("UserNotFound", { userId: Schema.Number }) {
  override get message() {
    return `User ${this.userId} not found`
  }
}

/** What an administrator does to a user's access, as messages name it. */
export const AccessChange = Schema.Literal("demote", "deactivate", "remove", "resetPassword")
export type AccessChange = typeof AccessChange.Type

const changeText: Record<AccessChange, string> = {
  demote: "make a member",
  deactivate: "deactivate",
  remove: "remove",
  resetPassword: "reset the password of"
}

/** The change would leave the organization without an active administrator. */
export class LastAdmin extends Schema.TaggedError<LastAdmin>()("LastAdmin", { userId: Schema.Number, change: AccessChange }) {
  override get message() {
    return `Cannot ${changeText[this.change]} the organization's last active administrator: ` +
      `make another user an administrator first`
  }
}

/** An administrator deactivating, removing or resetting their own account (they would lock themselves out). */
export class OwnAccount extends Schema.TaggedError<OwnAccount>()("OwnAccount", { change: AccessChange }) {
  override get message() {
    return this.change === "resetPassword"
      ? "You cannot reset your own password here; change it with your current password instead"
      : `You cannot ${changeText[this.change]} your own account; another administrator can`
  }
}

/** The right password of a deactivated user. */
export class UserDeactivated extends Schema.TaggedError<UserDeactivated>()("UserDeactivated", {}) {
  override get message() {
    return "This account is deactivated; an administrator of your organization can reactivate it"
  }
}

/** A password reset hands out a password: an API key (a program's credential) may not ask for one. */
export class PasswordResetNeedsSession extends Schema.TaggedError<PasswordResetNeedsSession>()("PasswordResetNeedsSession", {}) {
  override get message() {
    return "Resetting a user's password needs a login session; API keys cannot reset passwords"
  }
}
