import { CurrentPrincipal } from "@agentline/api/Authentication"
import { Users } from "@agentline/core/users/Users"
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"
import { ServerConfig } from "../ServerConfig.js"
import * as ClientAddress from "./ClientAddress.js"
import * as SessionCookies from "./SessionCookies.js"

export const AuthLive = HttpApiBuilder.group(AgentlineApi, "auth", (handlers) =>
  Effect.gen(function*() {
    const users = yield* Users
    const config = yield* ServerConfig
    const clientAddress = ClientAddress.ofRequest(config.trustedProxyHops ?? 0)
    return handlers
      .handle("login", ({ payload }) =>
        wire(Effect.gen(function*() {
          const session = yield* users.login(payload.email, payload.password, yield* clientAddress)
          // The same session for the dashboard, in cookies; API clients keep using the token in the body.
          yield* SessionCookies.setSessionCookies({
            token: session.token,
            expiresAt: session.expires_at,
            secure: SessionCookies.isHttps(yield* HttpServerRequest.HttpServerRequest, config.publicUrl),
            secretKey: config.secretKey
          })
          return session
        })))
      .handle("changePassword", ({ payload }) =>
        wire(Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const address = yield* clientAddress
          return yield* users.changePassword(principal, payload.current_password, payload.new_password, address)
        })))
      .handle("logout", () =>
        wire(Effect.gen(function*() {
          yield* users.logout(yield* CurrentPrincipal)
          yield* SessionCookies.clearSessionCookies(
            SessionCookies.isHttps(yield* HttpServerRequest.HttpServerRequest, config.publicUrl)
          )
          return { success: true, message: "Logged out" }
        })))
      .handle("me", () => wire(Effect.flatMap(CurrentPrincipal, users.me)))
  }))
