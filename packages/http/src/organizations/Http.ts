import { authorize } from "@agentline/core/organizations/Permissions"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { Organizations } from "@agentline/core/organizations/Organizations"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"

export const OrganizationsLive = HttpApiBuilder.group(AgentlineApi, "organizations", (handlers) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    return handlers
      .handle("current", () => wire(Effect.flatMap(CurrentPrincipal, organizations.current)))
      .handle("setConcurrentCallLimit", ({ payload }) =>
        wire(Effect.flatMap(authorize("manageLimits"), (admin) =>
          organizations.setConcurrentCallLimit(admin.organizationId, payload.concurrent_call_limit))))
  }))
