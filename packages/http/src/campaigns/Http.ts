import { Campaigns } from "@agentline/core/campaigns/Campaigns"
import { CampaignReports } from "@agentline/core/campaigns/CampaignReports"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"
import { csvResponse } from "../runs/RunSearchHttp.js"

export const CampaignsLive = HttpApiBuilder.group(AgentlineApi, "campaigns", (handlers) =>
  Effect.gen(function*() {
    const campaigns = yield* Campaigns
    const reports = yield* CampaignReports
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
      .handle("progress", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(reports.progress(p, path.campaign_id))))
      .handleRaw("report", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (p) =>
          Effect.map(wire(reports.report(p, path.campaign_id)), (body) => csvResponse(`campaign-${path.campaign_id}-report.csv`, body))))
      .handle("sourceDownloadUrl", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(reports.sourceDownloadUrl(p, path.campaign_id))))
  }))

/** A campaign's contacts file behind its signed link, streamed under the name it was uploaded with. */
export const PublicCampaignSourceLive = HttpApiBuilder.group(AgentlineApi, "publicCampaignSource", (handlers) =>
  Effect.gen(function*() {
    const reports = yield* CampaignReports
    return handlers.handleRaw("download", ({ path }) =>
      Effect.map(wire(reports.downloadSource(path.token)), ({ content, upload }) =>
        HttpServerResponse.stream(content, {
          contentType: "text/csv; charset=utf-8",
          headers: {
            "content-disposition": `attachment; filename="${upload.file_name.replace(/[^A-Za-z0-9._ -]/g, "_")}"`,
            "cache-control": "no-store",
            ...(upload.stored_size === null ? {} : { "content-length": String(upload.stored_size) })
          }
        })))
  }))
