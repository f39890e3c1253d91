/**
 * The pure parts of event webhooks: the events' payloads, the retry schedule, which endpoints an event
 * goes to. (Which network addresses a webhook may never be sent to: `OutboundTargets.ts`.)
 *
 * Payloads follow the Standard Webhooks recommendation: `{type, timestamp, data}`.
 */
import type { WebhookEventType } from "@agentline/api/webhooks/Webhooks"

export interface EventEnvelope {
  readonly type: WebhookEventType
  readonly timestamp: string
  readonly data: Record<string, unknown>
}

export const envelope = (type: WebhookEventType, at: string, data: Record<string, unknown>): EventEnvelope => ({
  type,
  timestamp: at,
  data
})

/**
 * Delays before each retry after a failed attempt, as Standard Webhooks senders use them: 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h — about 27.6 hours from the first attempt to the last, so an endpoint
 * that is down for a day still gets everything.
 */
export const DEFAULT_RETRY_DELAYS_MILLIS: ReadonlyArray<number> = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000
]

/**
 * When to try again after the `attemptCount`-th failed attempt (1 = the first), or `undefined` when
 * the retries are spent and the delivery has failed.
 */
export const nextAttemptAt = (
  delays: ReadonlyArray<number>,
  attemptCount: number,
  nowMillis: number
): number | undefined => {
  const delay = delays[attemptCount - 1]
  return delay === undefined ? undefined : nowMillis + delay
}

/** Whether an HTTP status is a successful delivery (any 2xx, as the specification says). */
export const isDelivered = (status: number | null): boolean => status !== null && status >= 200 && status < 300

/** Whether an endpoint failing since `failingSince` has failed for long enough to be disabled. */
export const shouldDisable = (failingSince: string, nowMillis: number, disableAfterMillis: number): boolean =>
  nowMillis - Date.parse(failingSince) >= disableAfterMillis

// -------------------------------------------------------------------------------------- event data

/** What a run's events tell of it (the run as stored, without its artifacts' storage keys). */
interface RunFacts {
  readonly id: number
  readonly workflow_id: number
  readonly campaign_id: number | null
  readonly name: string
  readonly mode: string
  readonly call_type: "inbound" | "outbound"
  readonly initial_context: Record<string, unknown> | null
  readonly gathered_context: Record<string, unknown> | null
  readonly usage_info: Record<string, unknown> | null
  readonly cost_info: Record<string, unknown> | null
  readonly created_at: string
}

export const runStartedData = (run: RunFacts): Record<string, unknown> => ({
  run_id: run.id,
  workflow_id: run.workflow_id,
  campaign_id: run.campaign_id,
  name: run.name,
  provider: run.mode,
  call_type: run.call_type,
  initial_context: run.initial_context ?? {},
  created_at: run.created_at
})

/**
 * A finished run: its outcome, duration and disposition up front, the gathered context whole, and
 * links: `run` (the API, with an API key) and signed links to the transcript and recording the run
 * has when it ends (valid for the server's public-link lifetime; the run's API view mints fresh ones).
 */
export const runEndedData = (
  run: RunFacts,
  links: { readonly run: string; readonly artifact: (artifact: "transcript" | "recording") => string | null }
): Record<string, unknown> => {
  const context = run.gathered_context ?? {}
  const duration = run.usage_info?.call_duration_seconds
  return {
    ...runStartedData(run),
    outcome: context.outcome ?? null,
    duration_seconds: typeof duration === "number" ? duration : 0,
    disposition: context.mapped_call_disposition ?? context.call_disposition ?? null,
    gathered_context: context,
    usage_info: run.usage_info ?? {},
    cost_info: run.cost_info ?? {},
    links: { run: links.run, transcript: links.artifact("transcript"), recording: links.artifact("recording") }
  }
}

/** What a campaign's events tell of it. */
interface CampaignFacts {
  readonly id: number
  readonly name: string
  readonly workflow_id: number
  readonly state: string
  readonly total_rows: number | null
  readonly processed_rows: number
  readonly failed_rows: number
  readonly skipped_rows: number
  readonly executed_count: number
  readonly started_at: string | null
  readonly completed_at: string | null
}

const campaignCounters = (campaign: CampaignFacts) => ({
  total_rows: campaign.total_rows,
  processed_rows: campaign.processed_rows,
  failed_rows: campaign.failed_rows,
  skipped_rows: campaign.skipped_rows,
  executed_count: campaign.executed_count
})

/** A change of state, with the log entry that explains it (a breaker trip's details included). */
export const campaignStateChangedData = (
  campaign: CampaignFacts,
  change: { readonly action: string; readonly event: string; readonly message: string; readonly details: Record<string, unknown> }
): Record<string, unknown> => ({
  campaign_id: campaign.id,
  name: campaign.name,
  workflow_id: campaign.workflow_id,
  state: campaign.state,
  action: change.action,
  event: change.event,
  message: change.message,
  details: change.details,
  counters: campaignCounters(campaign)
})

export const campaignCompletedData = (campaign: CampaignFacts): Record<string, unknown> => ({
  campaign_id: campaign.id,
  name: campaign.name,
  workflow_id: campaign.workflow_id,
  state: campaign.state,
  started_at: campaign.started_at,
  completed_at: campaign.completed_at,
  counters: campaignCounters(campaign)
})
