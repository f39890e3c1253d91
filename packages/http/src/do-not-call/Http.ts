import { AgentlineApi } from "@agentline/api/Api"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { DoNotCall } from "@agentline/core/do-not-call/DoNotCall"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { wire } from "../DomainErrors.js"

export const DoNotCallLive = HttpApiBuilder.group(AgentlineApi, "doNotCall", (handlers) =>
  Effect.gen(function*() {
    const list = yield* DoNotCall
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(list.list(p, urlParams.page, urlParams.limit))))
      .handle("add", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(list.add(p, payload))))
      .handle("importCsv", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(list.importCsv(p, payload))))
      .handle("check", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(list.check(p, urlParams.phone_number, urlParams.country_code))))
      .handle("remove", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(list.remove(p, urlParams.phone_number, urlParams.country_code))))
  }))
