import { Users } from "@agentline/core/users/Users"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "../Api.js"
import { requireAdmin } from "../Authentication.js"

export const UsersLive = HttpApiBuilder.group(AgentlineApi, "users", (handlers) =>
  Effect.gen(function*() {
    const users = yield* Users
    return handlers
      .handle("create", ({ payload }) =>
        Effect.flatMap(requireAdmin, (admin) =>
          users.create({
            email: payload.email,
            password: payload.password,
            role: payload.role,
            organization: { id: admin.organizationId }
          })))
      .handle("list", () => Effect.flatMap(requireAdmin, (admin) => Effect.map(users.list(admin), (list) => ({ users: list }))))
  }))
