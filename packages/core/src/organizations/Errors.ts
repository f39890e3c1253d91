import { Schema } from "effect"

export class OrganizationNotFound extends Schema.TaggedError<OrganizationNotFound>()("OrganizationNotFound", {
  organizationId: Schema.Number
}) {
  override get message() {
    return "Organization not found"
  }
}

/** Valid credentials whose role does not include the permission (`Permissions.ts`). */
export class PermissionDenied extends Schema.TaggedError<PermissionDenied>()("PermissionDenied", {
  /** What was refused, as the message shows it ("Managing the organization's users"). */
  what: Schema.String,
  required: Schema.String,
  role: Schema.String
}) {
  override get message() {
    return `${this.what} needs the ${this.required} role (your role is ${this.role}); ask an administrator of your organization`
  }
}
