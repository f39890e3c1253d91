import { OrganizationId, UserId } from "../Ids.js"
import { Schema } from "effect"

export const Role = Schema.Literal("admin", "member")
export type Role = typeof Role.Type

/** A user as the API shows it (never the password hash). */
export const User = Schema.Struct({
  id: UserId,
  organization_id: OrganizationId,
  email: Schema.String,
  role: Role,
  must_change_password: Schema.Boolean,
  created_at: Schema.String,
  updated_at: Schema.String
})
export type User = typeof User.Type

export const Email = Schema.Trim.pipe(
  Schema.compose(Schema.Lowercase),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an email address such as ada@example.com" }),
  Schema.maxLength(254)
).annotations({ jsonSchema: { type: "string", format: "email", maxLength: 254 } })

export const Password = Schema.String.pipe(
  Schema.minLength(8, { message: () => "must be at least 8 characters" }),
  Schema.maxLength(1024)
)

export const CreateUserRequest = Schema.Struct({
  email: Email,
  password: Password,
  role: Schema.optionalWith(Role, { default: () => "member" as const })
})

export const LoginRequest = Schema.Struct({
  email: Schema.Trim.pipe(Schema.compose(Schema.Lowercase)),
  password: Schema.String
})

export const LoginResponse = Schema.Struct({
  token: Schema.String,
  token_type: Schema.Literal("bearer"),
  expires_at: Schema.String,
  user: User
})

export const ChangePasswordRequest = Schema.Struct({
  current_password: Schema.String,
  new_password: Password
})
