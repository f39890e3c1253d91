import { CurrentPrincipal } from "@agentline/core/organizations/Principal"
import { Organizations } from "@agentline/core/organizations/Organizations"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "../Api.js"
import { requireAdmin } from "../Authentication.js"

export const OrganizationsLive = HttpApiBuilder.group(AgentlineApi, "organizations", (handlers) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    return handlers
      .handle("current", () => Effect.flatMap(CurrentPrincipal, organizations.current))
      .handle("setConcurrentCallLimit", ({ payload }) =>
        Effect.flatMap(requireAdmin, (admin) =>
          organizations.setConcurrentCallLimit(admin.organizationId, payload.concurrent_call_limit)))
  }))
