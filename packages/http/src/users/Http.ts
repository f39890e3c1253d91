import { authorize } from "@agentline/core/organizations/Permissions"
import { Users } from "@agentline/core/users/Users"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"

export const UsersLive = HttpApiBuilder.group(AgentlineApi, "users", (handlers) =>
  Effect.gen(function*() {
    const users = yield* Users
    return handlers
      .handle("create", ({ payload }) =>
        wire(Effect.flatMap(authorize("manageUsers"), (admin) =>
          users.create({
            email: payload.email,
            password: payload.password,
            role: payload.role,
            organization: { id: admin.organizationId }
          }))))
      .handle("list", () => wire(Effect.flatMap(authorize("manageUsers"), (admin) => Effect.map(users.list(admin), (list) => ({ users: list })))))
  }))
