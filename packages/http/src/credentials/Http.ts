import { AgentlineApi } from "@agentline/api/Api"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { Credentials } from "@agentline/core/credentials/Credentials"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { wire } from "../DomainErrors.js"

export const CredentialsLive = HttpApiBuilder.group(AgentlineApi, "credentials", (handlers) =>
  Effect.gen(function*() {
    const credentials = yield* Credentials
    return handlers
      .handle("list", () => Effect.flatMap(CurrentPrincipal, (p) => wire(credentials.list(p))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(credentials.create(p, payload))))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(credentials.get(p, path.credential_uuid))))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(credentials.update(p, path.credential_uuid, payload))))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(credentials.remove(p, path.credential_uuid))))
  }))
