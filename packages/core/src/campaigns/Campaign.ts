/**
 * Campaigns as the API shows them, and their request bodies. The settings' bounds and defaults live in
 * `CampaignSettings.ts` (see docs/campaigns.md); responses always show the effective values.
 *
 * Counters, one meaning each:
 * - `total_rows`: contacts imported from the CSV (known when create returns);
 * - `processed_rows`: contacts whose outcome is final;
 * - `failed_rows`: contacts that ended without being reached (retries used up, a failure, or interrupted);
 * - `executed_count`: call attempts placed, retries included;
 * - `total_queued_count`: attempts queued, retries included.
 */
import { Schema } from "effect"
import { CircuitBreakerConfig, RetryConfig, ScheduleConfig } from "./CampaignSettings.js"

export const CampaignState = Schema.Literal("draft", "running", "paused", "completed", "failed", "canceled")

export const LogEntry = Schema.Struct({
  ts: Schema.String,
  level: Schema.String,
  event: Schema.String,
  message: Schema.String,
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

const Name = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "name must be 1 to 255 characters" }),
  Schema.maxLength(255, { message: () => "name must be 1 to 255 characters" })
)
const MaxConcurrency = Schema.Int.pipe(
  Schema.between(1, 100, { message: () => "max_concurrency must be an integer between 1 and 100" })
)

export const Campaign = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  workflow_id: Schema.Int,
  workflow_name: Schema.String,
  state: CampaignState,
  source_type: Schema.String,
  source_id: Schema.String,
  total_rows: Schema.NullOr(Schema.Int),
  processed_rows: Schema.Int,
  failed_rows: Schema.Int,
  created_at: Schema.String,
  started_at: Schema.NullOr(Schema.String),
  completed_at: Schema.NullOr(Schema.String),
  retry_config: Schema.encodedSchema(RetryConfig),
  max_concurrency: Schema.NullOr(Schema.Int),
  schedule_config: Schema.NullOr(Schema.encodedSchema(ScheduleConfig)),
  circuit_breaker: Schema.encodedSchema(CircuitBreakerConfig),
  executed_count: Schema.Int,
  total_queued_count: Schema.Int,
  parent_campaign_id: Schema.NullOr(Schema.Int),
  redialed_campaign_id: Schema.NullOr(Schema.Int),
  telephony_configuration_id: Schema.NullOr(Schema.Int),
  telephony_configuration_name: Schema.NullOr(Schema.String),
  logs: Schema.Array(LogEntry)
})
export type Campaign = typeof Campaign.Type

export const CreateCampaignRequest = Schema.Struct({
  name: Name,
  workflow_id: Schema.Int,
  source_type: Schema.String.pipe(Schema.pattern(/^csv$/, { message: () => "source_type must be 'csv'" })),
  source_id: Schema.String.pipe(Schema.minLength(1)),
  telephony_configuration_id: Schema.optional(Schema.NullOr(Schema.Int)),
  retry_config: Schema.optional(RetryConfig),
  max_concurrency: Schema.optional(Schema.NullOr(MaxConcurrency)),
  schedule_config: Schema.optional(Schema.NullOr(ScheduleConfig)),
  circuit_breaker: Schema.optional(CircuitBreakerConfig)
})
export type CreateCampaignRequest = typeof CreateCampaignRequest.Type

export const UpdateCampaignRequest = Schema.Struct({
  name: Schema.optional(Name),
  retry_config: Schema.optional(RetryConfig),
  max_concurrency: Schema.optional(Schema.NullOr(MaxConcurrency)),
  schedule_config: Schema.optional(Schema.NullOr(ScheduleConfig)),
  circuit_breaker: Schema.optional(CircuitBreakerConfig)
})
export type UpdateCampaignRequest = typeof UpdateCampaignRequest.Type

export const RedialRequest = Schema.Struct({
  name: Schema.optional(Name),
  retry_on_voicemail: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  retry_on_no_answer: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  retry_on_busy: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  retry_config: Schema.optional(RetryConfig)
}).pipe(
  Schema.filter((r) => r.retry_on_voicemail || r.retry_on_no_answer || r.retry_on_busy || {
    path: ["retry_on_busy"],
    message: "select at least one outcome to redial (retry_on_busy, retry_on_no_answer or retry_on_voicemail)"
  })
)
export type RedialRequest = typeof RedialRequest.Type

export const CampaignList = Schema.Struct({
  campaigns: Schema.Array(Campaign),
  total_count: Schema.Int,
  page: Schema.Int,
  limit: Schema.Int,
  total_pages: Schema.Int
})
