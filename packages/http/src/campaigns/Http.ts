import { Campaigns } from "@agentline/core/campaigns/Campaigns"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"

export const CampaignsLive = HttpApiBuilder.group(AgentlineApi, "campaigns", (handlers) =>
  Effect.gen(function*() {
    const campaigns = yield* Campaigns
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(campaigns.create(p, payload))))
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(campaigns.list(p, urlParams.page, urlParams.limit))))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(campaigns.get(p, path.campaign_id))))
      .handle("update", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(campaigns.update(p, path.campaign_id, payload))))
      .handle("start", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(campaigns.start(p, path.campaign_id))))
      .handle("pause", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(campaigns.pause(p, path.campaign_id))))
      .handle("resume", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(campaigns.resume(p, path.campaign_id))))
      .handle("cancel", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(campaigns.cancel(p, path.campaign_id))))
      .handle("runs", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(campaigns.runs(p, path.campaign_id, urlParams.page, urlParams.limit))))
      .handle("redial", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(campaigns.redial(p, path.campaign_id, payload))))
  }))
