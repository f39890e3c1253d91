/**
 * Campaigns as the API shows them, and their request bodies. The settings' bounds and defaults live in
 * `CampaignSettings.ts` (see docs/campaigns.md); responses always show the effective values.
 *
 * Counters, one meaning each:
 * - `total_rows`: contacts imported from the CSV (known when create returns);
 * - `processed_rows`: contacts whose outcome is final;
 * - `failed_rows`: contacts that ended without being reached (retries used up, a failure, or interrupted);
 * - `skipped_rows`: contacts never dialed because their number is on the do-not-call list (in
 *   `processed_rows`, not in `failed_rows`);
 * - `executed_count`: call attempts placed, retries included;
 * - `total_queued_count`: attempts queued, retries included.
 */
import { CampaignId, TelephonyConfigurationId, WorkflowId } from "../Ids.js"
import { Schema } from "effect"
import { lengthLimits } from "../Params.js"
import { LogEntry } from "./CampaignLog.js"
import {
  CircuitBreakerChanges,
  CircuitBreakerConfig,
  RetryConfig,
  RetryConfigChanges,
  ScheduleConfig,
  TimeSlots
} from "./CampaignSettings.js"

const Name = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "name must be 1 to 255 characters" }),
  Schema.maxLength(255, { message: () => "name must be 1 to 255 characters" })
).annotations(lengthLimits(1, 255))
const MaxConcurrency = Schema.Int.pipe(
  Schema.between(1, 100, { message: () => "max_concurrency must be an integer between 1 and 100" })
)

export const CampaignState = Schema.Literal("draft", "running", "paused", "completed", "failed", "canceled")
export type CampaignState = typeof CampaignState.Type

export const Campaign = Schema.Struct({
  id: CampaignId,
  name: Schema.String,
  workflow_id: WorkflowId,
  workflow_name: Schema.String,
  state: CampaignState,
  source_type: Schema.String,
  source_id: Schema.String,
  total_rows: Schema.NullOr(Schema.Int),
  processed_rows: Schema.Int,
  failed_rows: Schema.Int,
  skipped_rows: Schema.Int,
  created_at: Schema.String,
  started_at: Schema.NullOr(Schema.String),
  completed_at: Schema.NullOr(Schema.String),
  retry_config: Schema.encodedSchema(RetryConfig),
  max_concurrency: Schema.NullOr(Schema.Int),
  schedule_config: Schema.NullOr(Schema.encodedSchema(ScheduleConfig)),
  circuit_breaker: Schema.encodedSchema(CircuitBreakerConfig),
  executed_count: Schema.Int,
  total_queued_count: Schema.Int,
  parent_campaign_id: Schema.NullOr(CampaignId),
  redialed_campaign_id: Schema.NullOr(CampaignId),
  telephony_configuration_id: Schema.NullOr(TelephonyConfigurationId),
  telephony_configuration_name: Schema.NullOr(Schema.String),
  logs: Schema.Array(LogEntry)
}).annotations({ identifier: "Campaign", description: "A campaign: an agent calling a list of contacts" })
export type Campaign = typeof Campaign.Type

const OptionalSchedule = Schema.optional(Schema.NullOr(ScheduleConfig))

// What `withTimeSlots` reads of a request whatever its other fields (generic fields hide them from the checker).
interface WithSlots {
  readonly time_slots?: ReadonlyArray<unknown> | null
  readonly schedule_config?: unknown
}

/**
 * `time_slots` is the spec's descriptive alias of `schedule_config.slots` (day names, 24-hour times):
 * given alone it becomes the schedule (time zone UTC, enabled); given with `schedule_config` it is a
 * 422, since one schedule would have to be ignored. Either way a schedule is never dropped silently.
 */
const withTimeSlots = <Fields extends { readonly schedule_config: typeof OptionalSchedule }>(fields: Fields) =>
  Schema.transform(
    Schema.Struct({ ...fields, time_slots: Schema.optional(Schema.NullOr(TimeSlots)) }).pipe(
      Schema.filter((request) =>
        (request as WithSlots).time_slots != null && (request as WithSlots).schedule_config !== undefined
          ? {
            path: ["time_slots"],
            message: "send the schedule once: time_slots is an alias of schedule_config.slots (use schedule_config alone to give a timezone)"
          }
          : true
      )
    ),
    Schema.typeSchema(Schema.Struct(fields)),
    {
      strict: false,
      decode: (input) => {
        const { time_slots, ...request } = input as WithSlots
        return time_slots == null ? request : { ...request, schedule_config: { enabled: true, timezone: "UTC", slots: time_slots } }
      },
      encode: (request) => request
    }
  )

export const CreateCampaignRequest = withTimeSlots({
  name: Name,
  workflow_id: WorkflowId,
  source_type: Schema.String.pipe(Schema.pattern(/^csv$/, { message: () => "source_type must be 'csv'" })),
  source_id: Schema.String.pipe(Schema.minLength(1)),
  telephony_configuration_id: Schema.optional(Schema.NullOr(TelephonyConfigurationId)),
  retry_config: Schema.optional(RetryConfig),
  max_concurrency: Schema.optional(Schema.NullOr(MaxConcurrency)),
  schedule_config: OptionalSchedule,
  circuit_breaker: Schema.optional(CircuitBreakerConfig)
})
export type CreateCampaignRequest = typeof CreateCampaignRequest.Type

/**
 * A campaign update: the fields sent change, the others are kept. `retry_config` and `circuit_breaker`
 * are merged field by field into the stored ones (`{"retry_config": {"max_retries": 1}}` changes only
 * that); `schedule_config` is replaced whole (its slots are one list).
 */
export const UpdateCampaignRequest = withTimeSlots({
  name: Schema.optional(Name),
  retry_config: Schema.optional(RetryConfigChanges),
  max_concurrency: Schema.optional(Schema.NullOr(MaxConcurrency)),
  schedule_config: OptionalSchedule,
  circuit_breaker: Schema.optional(CircuitBreakerChanges)
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
