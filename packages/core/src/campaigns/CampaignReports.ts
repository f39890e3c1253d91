/**
 * What operators read about one campaign (docs/reports.md): its progress in the reference's shape, the
 * report of every contact's outcome (CSV, streamed page by page: memory stays one page whatever the
 * campaign's size), and a signed, expiring link to the contacts file it was created from.
 */
import { CampaignId, OrganizationId } from "@agentline/api/Ids"
import { CAMPAIGN_REPORT_COLUMNS, type CampaignProgress, type CampaignSourceDownload } from "@agentline/api/campaigns/CampaignReports"
import type { Principal } from "@agentline/api/Authentication"
import { Chunk, Clock, Effect, Option, Stream } from "effect"
import { PublicUrls } from "../PublicUrls.js"
import { PublicLinkInvalid } from "../runs/Errors.js"
import { PublicLinks } from "../runs/PublicLinks.js"
import { csvLine } from "../runs/RunQuery.js"
import { Uploads } from "../uploads/Uploads.js"
import { CampaignReportsRepo, type ContactReportLine } from "./CampaignReportsRepo.js"
import { type CampaignKey, CampaignsRepo, type StoredCampaign } from "./CampaignsRepo.js"
import { CampaignNotFound } from "./Errors.js"
import * as SourceLinks from "./SourceLinks.js"

/** Contacts read by each page of a report. */
export const REPORT_PAGE = 500

/** A contact's report line, in `CAMPAIGN_REPORT_COLUMNS`' order. */
export const reportLine = (contact: ContactReportLine): string => csvLine(CAMPAIGN_REPORT_COLUMNS.map((column) => contact[column]))

/** The reference's progress from a campaign and its failed calls. */
export const progressOf = (campaign: StoredCampaign, failedCalls: number): CampaignProgress => {
  const total = campaign.total_rows ?? 0
  return {
    campaign_id: campaign.id,
    state: campaign.state,
    total_rows: total,
    processed_rows: campaign.processed_rows,
    failed_calls: failedCalls,
    progress_percentage: total === 0 ? 0 : Math.round((campaign.processed_rows / total) * 10_000) / 100,
    // Contacts are imported in the create request: once `total_rows` is known the import is done.
    source_sync: campaign.total_rows === null
      ? { status: "in_progress", last_synced_at: null, error: null }
      : { status: "completed", last_synced_at: campaign.created_at, error: null },
    rate_limit: campaign.max_concurrency ?? 0,
    started_at: campaign.started_at,
    completed_at: campaign.completed_at
  }
}

export class CampaignReports extends Effect.Service<CampaignReports>()("@agentline/core/CampaignReports", {
  effect: Effect.gen(function*() {
    const campaigns = yield* CampaignsRepo
    const repo = yield* CampaignReportsRepo
    const links = yield* PublicLinks
    const urls = yield* PublicUrls
    const uploads = yield* Uploads

    const find = (key: CampaignKey) =>
      Effect.flatMap(campaigns.find(key), Option.match({
        onNone: () => Effect.fail(new CampaignNotFound({ campaignId: key.campaignId })),
        onSome: Effect.succeed
      }))
    const keyOf = (principal: Principal, id: number): CampaignKey => ({
      organizationId: OrganizationId.make(principal.organizationId),
      campaignId: CampaignId.make(id)
    })

    const progress = Effect.fn("CampaignReports.progress")(function*(principal: Principal, id: number) {
      const key = keyOf(principal, id)
      const campaign = yield* find(key)
      return progressOf(campaign, yield* repo.failedCalls(key))
    })

    /** The report's bytes (header first): the campaign is found before anything is streamed, so a 404 is a 404. */
    const report = Effect.fn("CampaignReports.report")(function*(principal: Principal, id: number) {
      const key = keyOf(principal, id)
      yield* find(key)
      const encoder = new TextEncoder()
      const contacts = Stream.paginateChunkEffect(0, (after) =>
        repo.contacts(key, after, REPORT_PAGE).pipe(Effect.map((rows) => {
          const last = rows[rows.length - 1]
          return [
            Chunk.of(rows.map(reportLine).join("")),
            rows.length < REPORT_PAGE || last === undefined ? Option.none<number>() : Option.some(last.id)
          ] as const
        })))
      return Stream.concat(Stream.make(CAMPAIGN_REPORT_COLUMNS.join(",") + "\r\n"), contacts).pipe(
        Stream.filter((text) => text.length > 0),
        Stream.map((text) => encoder.encode(text)),
        Stream.withSpan("CampaignReports.report")
      )
    })

    const sourceDownloadUrl = Effect.fn("CampaignReports.sourceDownloadUrl")(function*(principal: Principal, id: number) {
      const key = keyOf(principal, id)
      const campaign = yield* find(key)
      // The file must still be there: a link that would answer an error is not handed out.
      yield* uploads.requireUploaded({ organizationId: key.organizationId }, campaign.source_id)
      const token = SourceLinks.sign(links, { campaignId: campaign.id, organizationId: key.organizationId }, yield* Clock.currentTimeMillis)
      return { download_url: urls.campaignSource({ token }), expires_in: links.ttlSeconds } satisfies CampaignSourceDownload
    })

    /** The contacts file behind a signed link; any invalid, expired or dangling link is the same 404. */
    const downloadSource = Effect.fn("CampaignReports.downloadSource")(function*(token: string) {
      const source = SourceLinks.verify(links, token, yield* Clock.currentTimeMillis)
      if (source === undefined) return yield* new PublicLinkInvalid()
      const campaign = yield* campaigns.find({
        organizationId: OrganizationId.make(source.organizationId),
        campaignId: CampaignId.make(source.campaignId)
      })
      if (Option.isNone(campaign)) return yield* new PublicLinkInvalid()
      return yield* uploads.download(source.organizationId, campaign.value.source_id).pipe(
        Effect.catchTags({
          UploadNotFound: () => Effect.fail(new PublicLinkInvalid()),
          UploadNoLongerStored: () => Effect.fail(new PublicLinkInvalid())
        })
      )
    })

    return { progress, report, sourceDownloadUrl, downloadSource } as const
  })
}) {}
