/**
 * What operators read about one campaign besides the campaign itself: its progress (the reference's
 * `CampaignProgressResponse`), a signed link to the contacts file it was created from, and the report's
 * columns (docs/reports.md).
 */
import { Schema } from "effect"
import { CampaignId } from "../Ids.js"

export const SourceSync = Schema.Struct({
  /** `completed` once the contacts were imported (in the create request), `in_progress` until then. */
  status: Schema.Literal("in_progress", "completed"),
  last_synced_at: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String)
})

export const CampaignProgress = Schema.Struct({
  campaign_id: CampaignId,
  state: Schema.String,
  total_rows: Schema.Int,
  processed_rows: Schema.Int,
  /** The campaign's runs whose call ended busy, unanswered or failed. */
  failed_calls: Schema.Int,
  progress_percentage: Schema.Number,
  source_sync: SourceSync,
  /** Calls at once (`max_concurrency`); 0 when only the organization's limit applies. */
  rate_limit: Schema.Int,
  started_at: Schema.NullOr(Schema.String),
  completed_at: Schema.NullOr(Schema.String)
}).annotations({ identifier: "CampaignProgress", description: "A campaign's progress (the reference's CampaignProgressResponse)" })
export type CampaignProgress = typeof CampaignProgress.Type

export const CampaignSourceDownload = Schema.Struct({
  download_url: Schema.String,
  expires_in: Schema.Int
}).annotations({ identifier: "CampaignSourceDownload", description: "A signed, expiring link to the campaign's contacts file" })
export type CampaignSourceDownload = typeof CampaignSourceDownload.Type

/** The report's columns, in order: one line per contact. */
export const CAMPAIGN_REPORT_COLUMNS = [
  "row_number",
  "phone_number",
  "state",
  "outcome",
  "attempts",
  "disposition",
  "run_id",
  "last_call_at",
  "duration_seconds",
  "cost_usd",
  "gathered_context"
] as const
