/**
 * Who may do what inside an organization (docs/security.md, "Roles"). Two roles:
 *
 * - members work with agents, campaigns, calls, runs and uploads, and manage their own API keys;
 * - administrators may do all of that and also manage the organization itself: its users, the API
 *   keys of others, its telephony (configurations and phone numbers) and its limits.
 *
 * What members need in order to work stays readable to them (the telephony configurations and numbers
 * a campaign calls from, with credentials masked for everyone; the organization and its limit). An API
 * key acts with its creator's role. The spec leaves roles open ("roles and permissions that decide a
 * 403: not shown") and only fixes the answer: 403 for valid credentials without the permission.
 */
import { Effect } from "effect"
import { PermissionDenied } from "./Errors.js"
import { CurrentPrincipal, type Principal } from "@agentline/api/Authentication"
import { type Role } from "@agentline/api/users/User"

/** Everything only some roles may do, each named as the message shows it ("<what> needs the admin role"). */
export const permissions = {
  manageUsers: { role: "admin", what: "Managing the organization's users" },
  manageOthersApiKeys: { role: "admin", what: "Archiving or reactivating another user's API key" },
  reactivateApiKeys: { role: "admin", what: "Reactivating an archived API key" },
  manageTelephony: { role: "admin", what: "Changing telephony configurations and phone numbers" },
  manageLimits: { role: "admin", what: "Changing the organization's limits" },
  manageDoNotCall: { role: "admin", what: "Removing a number from the do-not-call list" }
} as const satisfies Record<string, { readonly role: Role; readonly what: string }>

export type Permission = keyof typeof permissions

/** Each role and the roles it includes: an administrator may do everything a member may. */
const includes: Record<Role, ReadonlyArray<Role>> = {
  admin: ["admin", "member"],
  member: ["member"]
}

export const permits = (role: Role, permission: Permission): boolean => includes[role].includes(permissions[permission].role)

/** The refusal for a principal without the permission: says which role is needed and who can help. */
export const denial = (principal: Principal, permission: Permission): PermissionDenied =>
  new PermissionDenied({ what: permissions[permission].what, required: permissions[permission].role, role: principal.role })

export const check = (principal: Principal, permission: Permission): Effect.Effect<Principal, PermissionDenied> =>
  permits(principal.role, permission) ? Effect.succeed(principal) : Effect.fail(denial(principal, permission))

/** The current principal, when it has the permission; 403 otherwise. */
export const authorize = (permission: Permission): Effect.Effect<Principal, PermissionDenied, CurrentPrincipal> =>
  Effect.flatMap(CurrentPrincipal, (principal) => check(principal, permission))
