/**
 * Who may call the API and how: every endpoint but health, login, public links and the provider-facing
 * ones authenticates with `X-API-Key` or `authorization: Bearer <token>` (a login session), or, for the
 * dashboard, the login session's `agentline_session` cookie. The key wins when several are sent (as in
 * the reference implementation), then the bearer token, then the cookie.
 *
 * The cookie is HttpOnly and SameSite=Strict; a cookie-authenticated request other than GET and HEAD
 * must also carry `X-CSRF-Token` equal to the readable `agentline_csrf` cookie set with it at login
 * (double submit), or it is refused with 403. Bearer and API-key requests need no such header: a
 * browser never adds those credentials by itself.
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
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
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
  /** How the caller authenticated: an API key (programmatic) or a login session (bearer token or dashboard cookie). */
  readonly via:
    | { readonly _tag: "ApiKey"; readonly apiKeyId: number }
    | { readonly _tag: "Session"; readonly sessionId: number; readonly mustChangePassword: boolean }
}

export class CurrentPrincipal extends Context.Tag("@agentline/api/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/** The login session's token, for the dashboard (HttpOnly: scripts cannot read it). */
export const SESSION_COOKIE = "agentline_session"
/** The CSRF token that goes with the session cookie; readable by the dashboard's scripts on purpose. */
export const CSRF_COOKIE = "agentline_csrf"
/** The header a cookie-authenticated write repeats the CSRF cookie in. */
export const CSRF_HEADER = "X-CSRF-Token"

export const security = {
  apiKey: HttpApiSecurity.apiKey({ in: "header", key: "X-API-Key" }),
  bearer: HttpApiSecurity.bearer,
  cookie: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }).pipe(
    HttpApiSecurity.annotate(
      OpenApi.Description,
      `The dashboard's login session (set by POST /api/v1/auth/login). Requests other than GET and HEAD ` +
        `authenticated by it must send the ${CSRF_HEADER} header with the value of the ${CSRF_COOKIE} cookie.`
    )
  )
}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  provides: CurrentPrincipal,
  failure: Schema.Union(UnauthorizedResponse, ForbiddenResponse),
  security
}) {}

export class AuthenticationAllowingPasswordChange
  extends HttpApiMiddleware.Tag<AuthenticationAllowingPasswordChange>()("AuthenticationAllowingPasswordChange", {
    provides: CurrentPrincipal,
    // Forbidden: a cookie-authenticated write without its CSRF token.
    failure: Schema.Union(UnauthorizedResponse, ForbiddenResponse),
    security
  })
{}

/** For the single-call endpoints: an API key only, as the reference implementation requires. */
export class ApiKeyAuthentication extends HttpApiMiddleware.Tag<ApiKeyAuthentication>()("ApiKeyAuthentication", {
  provides: CurrentPrincipal,
  failure: UnauthorizedResponse,
  security: { apiKey: security.apiKey }
}) {}
