import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"

export const ApiKeysLive = HttpApiBuilder.group(AgentlineApi, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(keys.list(p, urlParams.include_archived))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(keys.create(p, payload.name))))
      .handle("archive", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(keys.archive(p, path.api_key_id))))
      .handle("reactivate", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(keys.reactivate(p, path.api_key_id))))
  }))
