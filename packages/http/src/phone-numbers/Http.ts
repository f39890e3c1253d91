import { authorize } from "@agentline/core/organizations/Permissions"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { PhoneNumbers } from "@agentline/core/phone-numbers/PhoneNumbers"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"

export const PhoneNumbersLive = HttpApiBuilder.group(AgentlineApi, "phoneNumbers", (handlers) =>
  Effect.gen(function*() {
    const numbers = yield* PhoneNumbers
    // Reading is open to members (they pick caller ids for their calls); changing is not.
    const manage = authorize("manageTelephony")
    return handlers
      .handle("list", ({ path }) => wire(Effect.flatMap(CurrentPrincipal, (p) => numbers.list(p, path.config_id))))
      .handle("create", ({ path, payload }) => wire(Effect.flatMap(manage, (p) => numbers.create(p, path.config_id, payload))))
      .handle("get", ({ path }) => wire(Effect.flatMap(CurrentPrincipal, (p) => numbers.get(p, path.config_id, path.phone_number_id))))
      .handle("update", ({ path, payload }) =>
        wire(Effect.flatMap(manage, (p) => numbers.update(p, path.config_id, path.phone_number_id, payload))))
      .handle("delete", ({ path }) => wire(Effect.flatMap(manage, (p) => numbers.delete(p, path.config_id, path.phone_number_id))))
      .handle("setDefaultCaller", ({ path }) =>
        wire(Effect.flatMap(manage, (p) => numbers.setDefaultCaller(p, path.config_id, path.phone_number_id))))
  }))
