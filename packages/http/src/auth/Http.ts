import { CurrentPrincipal } from "@agentline/core/organizations/Principal"
import { Users } from "@agentline/core/users/Users"
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { AgentlineApi } from "../Api.js"

export const AuthLive = HttpApiBuilder.group(AgentlineApi, "auth", (handlers) =>
  Effect.gen(function*() {
    const users = yield* Users
    return handlers
      .handle("login", ({ payload }) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const address = Option.getOrElse(request.remoteAddress, () => "unknown")
          return yield* users.login(payload.email, payload.password, address)
        }))
      .handle("changePassword", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          users.changePassword(principal, payload.current_password, payload.new_password)))
      .handle("me", () => Effect.flatMap(CurrentPrincipal, users.me))
  }))
