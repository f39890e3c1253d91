/**
 * Row codecs of the dispatcher's tables (`campaigns` as the dispatcher reads it, `call_attempts`,
 * `contacts`): each query's rows are decoded with one of these, never read by hand.
 */
import {
  AttemptId,
  CampaignId,
  ContactId,
  OrganizationId,
  RunId,
  TelephonyConfigurationId,
  WorkflowId
} from "@agentline/api/Ids"
import { CampaignState } from "@agentline/api/campaigns/Campaign"
import { CircuitBreakerConfig, RetryConfig, ScheduleConfig } from "@agentline/api/campaigns/CampaignSettings"
import type { DispatchCampaign, OpenAttempt, StoredAttempt } from "@agentline/core/dispatcher/DispatchRepo"
import { CallOutcome } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Schema } from "effect"
import * as Columns from "../Columns.js"

export const ACTIVE = ["claimed", "dialing"] as const

const CampaignRow = Schema.Struct({
  id: Columns.Id(CampaignId),
  organization_id: Columns.Id(OrganizationId),
  workflow_id: Columns.Id(WorkflowId),
  state: CampaignState,
  telephony_configuration_id: Schema.NullOr(Columns.Id(TelephonyConfigurationId)),
  max_concurrency: Schema.NullOr(Columns.Int),
  retry_config: Columns.Json(RetryConfig),
  schedule_config: Schema.NullOr(Columns.Json(ScheduleConfig)),
  circuit_breaker: Columns.Json(CircuitBreakerConfig)
})
export const decodeCampaigns = Columns.decodeRows(CampaignRow)
export const toCampaign = (row: typeof CampaignRow.Type): DispatchCampaign => ({
  id: row.id,
  organizationId: row.organization_id,
  workflowId: row.workflow_id,
  state: row.state,
  telephonyConfigurationId: row.telephony_configuration_id,
  maxConcurrency: row.max_concurrency,
  retry: row.retry_config,
  schedule: row.schedule_config,
  breaker: row.circuit_breaker
})

const AttemptRow = Schema.Struct({
  id: Columns.Id(AttemptId),
  organization_id: Columns.Id(OrganizationId),
  campaign_id: Schema.NullOr(Columns.Id(CampaignId)),
  contact_id: Schema.NullOr(Columns.Id(ContactId)),
  run_id: Schema.NullOr(Columns.Id(RunId)),
  telephony_configuration_id: Schema.NullOr(Columns.Id(TelephonyConfigurationId)),
  provider: Schema.String,
  provider_call_id: Schema.NullOr(Schema.String),
  state: Schema.Literal("claimed", "dialing", "ended", "interrupted"),
  attempt_number: Columns.Int,
  node_id: Schema.String,
  outcome: Schema.NullOr(Schema.Union(CallOutcome, Schema.Literal("interrupted")))
})
export const decodeAttempts = Columns.decodeRows(AttemptRow)
export const toAttempt = (row: typeof AttemptRow.Type): StoredAttempt => ({
  id: row.id,
  organizationId: row.organization_id,
  campaignId: row.campaign_id,
  contactId: row.contact_id,
  runId: row.run_id,
  telephonyConfigurationId: row.telephony_configuration_id,
  provider: row.provider,
  providerCallId: row.provider_call_id,
  state: row.state,
  attemptNumber: row.attempt_number,
  nodeId: row.node_id,
  outcome: row.outcome
})
export const isOpen = (attempt: StoredAttempt): attempt is OpenAttempt => attempt.state === "claimed" || attempt.state === "dialing"
export const decodeOpen = (rows: ReadonlyArray<unknown>) =>
  Effect.map(decodeAttempts(rows), (attempts) => attempts.map(toAttempt).filter(isOpen))

export const decodeCampaignIds = Columns.decodeRows(Schema.Struct({ id: Columns.Id(CampaignId) }))
export const decodeAttemptIds = Columns.decodeRows(Schema.Struct({ id: Columns.Id(AttemptId), contact_id: Schema.NullOr(Columns.Id(ContactId)) }))
export const decodeDue = Columns.decodeRows(Schema.Struct({ id: Columns.Id(ContactId), timezone: Schema.NullOr(Schema.String) }))
export const decodeCount = Columns.decodeRows(Schema.Struct({ n: Columns.Int }))
export const decodeLimit = Columns.decodeRows(Schema.Struct({ limit: Columns.Int }))
export const decodeClaimable = Columns.decodeRows(Schema.Struct({
  id: Columns.Id(ContactId),
  phone_number: Schema.String,
  initial_context: Columns.Json(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  attempts: Columns.Int
}))
const EndedRow = Schema.Struct({
  campaign_id: Schema.NullOr(Columns.Id(CampaignId)),
  contact_id: Schema.NullOr(Columns.Id(ContactId))
})
export const decodeEnded = Columns.decodeRows(EndedRow)
export const decodeEndedIds = Columns.decodeRows(Schema.Struct({ id: Columns.Id(AttemptId), ...EndedRow.fields }))
export const decodeNextDue = Columns.decodeRows(Schema.Struct({
  n: Columns.Int,
  fresh: Schema.NullOr(Columns.Int),
  earliest: Schema.NullOr(Columns.Ts)
}))
