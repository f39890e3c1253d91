/**
 * The server side of the API's authentication middlewares (declared in `@agentline/api/Authentication`):
 * resolves the request's credentials to a `Principal`, and applies the first-login gate.
 */
import { ApiKeyAuthentication, Authentication, AuthenticationAllowingPasswordChange, type Principal } from "@agentline/api/Authentication"
import { Forbidden, Unauthorized } from "@agentline/api/Errors"
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { Users } from "@agentline/core/users/Users"
import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Redacted } from "effect"
import { wire } from "./DomainErrors.js"

/** Resolves the request's credentials. Reads the headers itself so both schemes give one answer. */
const authenticate = Effect.gen(function*() {
  const apiKeys = yield* ApiKeys
  const users = yield* Users
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const apiKey = request.headers["x-api-key"]?.trim()
    if (apiKey) return yield* wire(apiKeys.authenticate(apiKey))
    const authorization = request.headers["authorization"]?.trim()
    if (authorization) {
      const token = authorization.replace(/^bearer\s+/i, "")
      return yield* wire(users.authenticateSession(token))
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
      return Authentication.of({ apiKey: () => gated, bearer: () => gated })
    })
  ),
  Layer.effect(
    AuthenticationAllowingPasswordChange,
    Effect.map(authenticate, (resolve) => AuthenticationAllowingPasswordChange.of({ apiKey: () => resolve, bearer: () => resolve }))
  )
)
