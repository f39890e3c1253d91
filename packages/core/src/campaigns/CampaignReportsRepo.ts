import { Context, type Effect } from "effect"
import type { CampaignKey } from "./CampaignsRepo.js"

/** One contact of a campaign with what its last call left (nulls while it was never called). */
export interface ContactReportLine {
  readonly id: number
  readonly row_number: number
  readonly phone_number: string
  /** The contact's own state: `done`, `exhausted`, `interrupted`, `skipped`, or `queued`/`dialing` while it runs. */
  readonly state: string
  /** The last call's outcome (`completed`, `busy`, `no_answer`, `voicemail`, `failed`, ...). */
  readonly outcome: string | null
  readonly attempts: number
  readonly disposition: string | null
  readonly run_id: number | null
  readonly last_call_at: string | null
  readonly duration_seconds: number | null
  readonly cost_usd: number | null
  readonly gathered_context: Record<string, unknown> | null
}

/** Storage port for reading a campaign's contacts and its runs' outcomes (the campaign was found in its organization first). */
export class CampaignReportsRepo extends Context.Tag("@agentline/core/CampaignReportsRepo")<
  CampaignReportsRepo,
  {
    /** The campaign's runs whose call ended busy, unanswered or failed. */
    readonly failedCalls: (key: CampaignKey) => Effect.Effect<number>
    /** Up to `limit` contacts after contact `afterId`, in id order (the file's order), with their last call. */
    readonly contacts: (key: CampaignKey, afterId: number, limit: number) => Effect.Effect<ReadonlyArray<ContactReportLine>>
  }
>() {}
