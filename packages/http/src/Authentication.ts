/**
 * The server side of the API's authentication middlewares (declared in `@agentline/api/Authentication`):
 * resolves the request's credentials (API key, bearer token or the dashboard's session cookie with its
 * CSRF check) to a `Principal`, and applies the first-login gate.
 */
import {
  ApiKeyAuthentication,
  Authentication,
  AuthenticationAllowingPasswordChange,
  CSRF_COOKIE,
  CSRF_HEADER,
  type Principal,
  SESSION_COOKIE
} from "@agentline/api/Authentication"
import { Forbidden, Unauthorized } from "@agentline/api/Errors"
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { Users } from "@agentline/core/users/Users"
import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Redacted } from "effect"
import * as SessionCookies from "./auth/SessionCookies.js"
import { wire } from "./DomainErrors.js"
import { ServerConfig } from "./ServerConfig.js"

/**
 * Resolves the request's credentials: an API key wins, then a bearer token, then the dashboard's
 * session cookie (whose writes must repeat the CSRF cookie in `X-CSRF-Token`). Reads the request itself
 * so every declared scheme gives one answer.
 */
const authenticate = Effect.gen(function*() {
  const apiKeys = yield* ApiKeys
  const users = yield* Users
  const { secretKey } = yield* ServerConfig
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const apiKey = request.headers["x-api-key"]?.trim()
    if (apiKey) return yield* wire(apiKeys.authenticate(apiKey))
    const authorization = request.headers["authorization"]?.trim()
    if (authorization) {
      const token = authorization.replace(/^bearer\s+/i, "")
      return yield* wire(users.authenticateSession(token))
    }
    const sessionCookie = SessionCookies.cookieOf(request, SESSION_COOKIE)
    if (sessionCookie !== undefined) {
      const principal = yield* users.authenticateSession(sessionCookie).pipe(
        Effect.catchTag("SessionInvalid", () =>
          Effect.fail(new Unauthorized({ detail: "Your login session has expired or was ended; log in again" })))
      )
      if (SessionCookies.needsCsrfToken(request.method)) {
        const header = request.headers[CSRF_HEADER.toLowerCase()]?.trim() ?? ""
        const cookie = SessionCookies.cookieOf(request, CSRF_COOKIE) ?? ""
        const expected = SessionCookies.csrfTokenFor(secretKey, sessionCookie)
        // Both comparisons always run (no early exit on the first).
        const matchesCookie = SessionCookies.safeEqual(header, cookie)
        const matchesSession = SessionCookies.safeEqual(cookie, expected)
        if (header === "" || !matchesCookie || !matchesSession) {
          return yield* new Forbidden({
            detail: `This request is authenticated by the session cookie, so it must send the ${CSRF_HEADER} header ` +
              `with the value of the ${CSRF_COOKIE} cookie set at login. Programs should send X-API-Key or ` +
              `'authorization: Bearer <token>' instead of cookies.`
          })
        }
      }
      return principal
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
            : wire(apiKeys.authenticate(value))
        }
      }))
  ),
  Layer.effect(
    Authentication,
    Effect.map(authenticate, (resolve) => {
      const gated = Effect.flatMap(resolve, gate)
      return Authentication.of({ apiKey: () => gated, bearer: () => gated, cookie: () => gated })
    })
  ),
  Layer.effect(
    AuthenticationAllowingPasswordChange,
    Effect.map(authenticate, (resolve) => AuthenticationAllowingPasswordChange.of({ apiKey: () => resolve, bearer: () => resolve, cookie: () => resolve }))
  )
)
