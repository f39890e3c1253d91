/**
 * Who may call the API and how: every endpoint but health, login, public links and the provider-facing
 * ones authenticates with `X-API-Key` or `authorization: Bearer <token>` (a login session). The key wins
 * when both are sent, as in the reference implementation.
 *
 * The middleware Tags are declared here, with the `Principal` they provide, so the API definition
 * (and a typed client) knows the security schemes and their failures; the server implements them
 * (`@agentline/http`'s `Authentication.ts`).
 *
 * `Authentication` also enforces the first-login gate (a login session whose user must still change
 * the password gets 403 `password_change_required` everywhere); `AuthenticationAllowingPasswordChange`
 * is the same without the gate, for the password change itself. API keys are never gated: they are
 * the programmatic path.
 */
import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Context, Schema } from "effect"
import { ForbiddenResponse, UnauthorizedResponse } from "./Errors.js"
import type { Role } from "./users/User.js"

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

export class CurrentPrincipal extends Context.Tag("@agentline/api/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

export const security = {
  apiKey: HttpApiSecurity.apiKey({ in: "header", key: "X-API-Key" }),
  bearer: HttpApiSecurity.bearer
}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  provides: CurrentPrincipal,
  failure: Schema.Union(UnauthorizedResponse, ForbiddenResponse),
  security
}) {}

export class AuthenticationAllowingPasswordChange
  extends HttpApiMiddleware.Tag<AuthenticationAllowingPasswordChange>()("AuthenticationAllowingPasswordChange", {
    provides: CurrentPrincipal,
    failure: UnauthorizedResponse,
    security
  })
{}

/** For the single-call endpoints: an API key only, as the reference implementation requires. */
export class ApiKeyAuthentication extends HttpApiMiddleware.Tag<ApiKeyAuthentication>()("ApiKeyAuthentication", {
  provides: CurrentPrincipal,
  failure: UnauthorizedResponse,
  security: { apiKey: security.apiKey }
}) {}
