/**
 * Every endpoint but health, login and the provider-facing ones authenticates with `X-API-Key` or
 * `authorization: Bearer <token>` (a login session). The key wins when both are sent, as in the
 * reference implementation.
 *
 * Two middlewares: `Authentication` also enforces the first-login gate (a login session whose user
 * must still change the password gets 403 `password_change_required` everywhere), and
 * `AuthenticationAllowingPasswordChange` is the same without the gate, for the password change itself.
 * API keys are never gated: they are the programmatic path.
 */
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { Forbidden, Unauthorized } from "@agentline/core/Errors"
import { CurrentPrincipal, type Principal } from "@agentline/core/organizations/Principal"
import { Users } from "@agentline/core/users/Users"
import { HttpApiMiddleware, HttpApiSecurity, HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Redacted, Schema } from "effect"

const security = {
  apiKey: HttpApiSecurity.apiKey({ in: "header", key: "X-API-Key" }),
  bearer: HttpApiSecurity.bearer
}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  provides: CurrentPrincipal,
  failure: Schema.Union(Unauthorized, Forbidden),
  security
}) {}

export class AuthenticationAllowingPasswordChange
  extends HttpApiMiddleware.Tag<AuthenticationAllowingPasswordChange>()("AuthenticationAllowingPasswordChange", {
    provides: CurrentPrincipal,
    failure: Unauthorized,
    security
  })
{}

/** For the single-call endpoints: an API key only, as the reference implementation requires. */
export class ApiKeyAuthentication extends HttpApiMiddleware.Tag<ApiKeyAuthentication>()("ApiKeyAuthentication", {
  provides: CurrentPrincipal,
  failure: Unauthorized,
  security: { apiKey: security.apiKey }
}) {}

/** Resolves the request's credentials. Reads the headers itself so both schemes give one answer. */
const authenticate = Effect.gen(function*() {
  const apiKeys = yield* ApiKeys
  const users = yield* Users
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const apiKey = request.headers["x-api-key"]?.trim()
    if (apiKey) return yield* apiKeys.authenticate(apiKey)
    const authorization = request.headers["authorization"]?.trim()
    if (authorization) {
      const token = authorization.replace(/^bearer\s+/i, "")
      return yield* users.authenticateSession(token)
    }
    return yield* new Unauthorized({
      detail: "Missing credentials: send an API key in the X-API-Key header or a login token as 'authorization: Bearer <token>'"
    })
  })
})

const gate = (principal: Principal) =>
  principal.via._tag === "Session" && principal.via.mustChangePassword
    ? Effect.fail(new Forbidden({ detail: "password_change_required" }))
    : Effect.succeed(principal)

export const layer = Layer.mergeAll(
  Layer.effect(
    ApiKeyAuthentication,
    Effect.map(ApiKeys, (apiKeys) =>
      ApiKeyAuthentication.of({
        apiKey: (key) => {
          const value = Redacted.value(key).trim()
          return value === ""
            ? Effect.fail(new Unauthorized({ detail: "The X-API-Key header is required for this endpoint" }))
            : apiKeys.authenticate(value)
        }
      }))
  ),
  Layer.effect(
    Authentication,
    Effect.map(authenticate, (resolve) => {
      const gated = Effect.flatMap(resolve, gate)
      return Authentication.of({ apiKey: () => gated, bearer: () => gated })
    })
  ),
  Layer.effect(
    AuthenticationAllowingPasswordChange,
    Effect.map(authenticate, (resolve) => AuthenticationAllowingPasswordChange.of({ apiKey: () => resolve, bearer: () => resolve }))
  )
)

/** Fails with 403 unless the caller is an administrator of its organization. */
export const requireAdmin = Effect.gen(function*() {
  const principal = yield* CurrentPrincipal
  if (principal.role !== "admin") {
    return yield* new Forbidden({ detail: "This operation needs the admin role; ask an administrator of your organization" })
  }
  return principal
})
