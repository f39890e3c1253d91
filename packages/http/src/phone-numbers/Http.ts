import { CurrentPrincipal } from "@agentline/core/organizations/Principal"
import { PhoneNumbers } from "@agentline/core/phone-numbers/PhoneNumbers"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "../Api.js"

export const PhoneNumbersLive = HttpApiBuilder.group(AgentlineApi, "phoneNumbers", (handlers) =>
  Effect.gen(function*() {
    const numbers = yield* PhoneNumbers
    return handlers
      .handle("list", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => numbers.list(p, path.config_id)))
      .handle("create", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => numbers.create(p, path.config_id, payload)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => numbers.get(p, path.config_id, path.phone_number_id)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => numbers.update(p, path.config_id, path.phone_number_id, payload)))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => numbers.delete(p, path.config_id, path.phone_number_id)))
      .handle("setDefaultCaller", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (p) => numbers.setDefaultCaller(p, path.config_id, path.phone_number_id)))
  }))
