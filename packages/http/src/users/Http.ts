import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { authorize } from "@agentline/core/organizations/Permissions"
import type { Change } from "@agentline/core/users/UserAccess"
import { Users } from "@agentline/core/users/Users"
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"

export const UsersLive = HttpApiBuilder.group(AgentlineApi, "users", (handlers) =>
  Effect.gen(function*() {
    const users = yield* Users
    const apiKeys = yield* ApiKeys
    /** A change of access; this process's verified API keys are forgotten, so their owners' new access holds at once. */
    const change = (userId: number, what: Change) =>
      Effect.flatMap(authorize("manageUsers"), (admin) => Effect.tap(users.changeAccess(admin, userId, what), () => apiKeys.forgetVerified()))
    const changed = (userId: number, what: Change) =>
      wire(Effect.flatMap(change(userId, what), Option.match({ onNone: () => Effect.die("the user was removed"), onSome: Effect.succeed })))
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
      .handle("get", ({ path }) => wire(Effect.flatMap(authorize("manageUsers"), (admin) => users.get(admin, path.user_id))))
      .handle("changeRole", ({ path, payload }) => changed(path.user_id, { _tag: "SetRole", role: payload.role }))
      .handle("deactivate", ({ path }) => changed(path.user_id, { _tag: "Deactivate" }))
      .handle("reactivate", ({ path }) => changed(path.user_id, { _tag: "Reactivate" }))
      .handle("remove", ({ path }) =>
        wire(Effect.as(change(path.user_id, { _tag: "Remove" }), { success: true, message: "User removed" })))
      .handle("resetPassword", ({ path }) =>
        wire(Effect.flatMap(authorize("manageUsers"), (admin) => users.resetPassword(admin, path.user_id))))
  }))
