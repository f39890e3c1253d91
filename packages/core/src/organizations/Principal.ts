import { Context } from "effect"

export type Role = "admin" | "member"

/**
 * Who is calling. Every service method that reads or writes organization data takes the
 * organization from here, never from the request body, so one organization cannot reach another's data.
 */
export interface Principal {
  readonly organizationId: number
  readonly userId: number
  readonly email: string
  readonly role: Role
  /** How the caller authenticated: an API key (programmatic) or a login session (bearer token). */
  readonly via:
    | { readonly _tag: "ApiKey"; readonly apiKeyId: number }
    | { readonly _tag: "Session"; readonly sessionId: number; readonly mustChangePassword: boolean }
}

export class CurrentPrincipal extends Context.Tag("@agentline/core/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/**
 * The principal of a user acting outside an HTTP request (command line, demo, benchmarks, tests): as
 * that user, through an API key, so the first-login gate does not apply.
 */
export const acting = (
  user: { readonly id: number; readonly organization_id: number; readonly email: string; readonly role: Role },
  apiKeyId = 0
): Principal => ({
  organizationId: user.organization_id,
  userId: user.id,
  email: user.email,
  role: user.role,
  via: { _tag: "ApiKey", apiKeyId }
})
