import type { CampaignId, OrganizationId, TelephonyConfigurationId, WorkflowId } from "@agentline/api/Ids"
import { Context, type Effect, type Option } from "effect"
import type { Campaign } from "@agentline/api/campaigns/Campaign"
import type { LogEntry } from "@agentline/api/campaigns/CampaignLog"
import type { StateChange } from "./CampaignState.js"
import type { CampaignState } from "@agentline/api/campaigns/Campaign"
import type { ContactRow } from "./CsvImport.js"

export type StoredCampaign = Campaign & { readonly organization_id: OrganizationId }

export interface CampaignSettingsUpdate {
  readonly name?: string
  readonly retry_config?: unknown
  readonly max_concurrency?: number | null
  readonly schedule_config?: unknown
  readonly circuit_breaker?: unknown
}

/** One campaign of one organization (requests never reach another organization's campaigns). */
export interface CampaignKey {
  readonly organizationId: OrganizationId
  readonly campaignId: CampaignId
}

/** Storage port for campaigns and their contacts (dialing state is the dispatcher's port). */
export class CampaignsRepo extends Context.Tag("@agentline/core/CampaignsRepo")<
  CampaignsRepo,
  {
    readonly insert: (input: {
      readonly organization_id: OrganizationId
      readonly name: string
      readonly workflow_id: WorkflowId
      readonly telephony_configuration_id: TelephonyConfigurationId | null
      readonly source_type: string
      readonly source_id: string
      readonly retry_config: unknown
      readonly max_concurrency: number | null
      readonly schedule_config: unknown
      readonly circuit_breaker: unknown
      readonly parent_campaign_id: CampaignId | null
      readonly log: LogEntry
      readonly now: string
    }) => Effect.Effect<StoredCampaign>
    /** Inserts a batch; returns the row numbers NOT inserted because the number was already in the campaign. */
    readonly insertContacts: (input: CampaignKey & {
      readonly rows: ReadonlyArray<ContactRow>
      readonly now: string
    }) => Effect.Effect<ReadonlyArray<number>>
    /**
     * Removes a campaign whose import failed, with the contacts it got; only while its import is
     * unfinished (`total_rows` unset), so it can never remove a campaign in use.
     */
    readonly discard: (key: CampaignKey) => Effect.Effect<void>
    /** Records the import's size: `total_rows` and the initially queued attempts. */
    readonly setImported: (input: { readonly campaignId: CampaignId; readonly contacts: number }) => Effect.Effect<void>
    readonly find: (key: CampaignKey) => Effect.Effect<Option.Option<StoredCampaign>>
    readonly list: (input: {
      readonly organizationId: OrganizationId
      readonly offset: number
      readonly limit: number
    }) => Effect.Effect<{ readonly campaigns: ReadonlyArray<StoredCampaign>; readonly total: number }>
    /** Updates settings only while the campaign is in one of `allowedStates`; `None` otherwise or when missing. */
    readonly updateSettings: (input: CampaignKey & {
      readonly update: CampaignSettingsUpdate
      readonly allowedStates: ReadonlyArray<CampaignState>
      readonly now: string
    }) => Effect.Effect<Option.Option<StoredCampaign>>
    /**
     * The one writer of campaign state, for the API and the dispatcher alike: applies `action` as the
     * transition table (`stateChange` in `CampaignState.ts`) says, atomically with its log entry (whose
     * `ts` is the change's time) and the stamps the action sets. `None` when the campaign was in a state
     * the action is not allowed from (or not `expected`), not the organization's, or, for `complete`,
     * still had contacts queued or being dialed.
     */
    readonly transition: (input: {
      readonly campaignId: CampaignId
      readonly action: StateChange
      readonly log: LogEntry
      /** Only from this state (the one the caller decided on); otherwise from any state the action allows. */
      readonly expected?: CampaignState
      /** Only within this organization (requests act for one; the dispatcher owns campaigns by lease). */
      readonly organizationId?: OrganizationId
    }) => Effect.Effect<Option.Option<StoredCampaign>>
    /**
     * Copies the parent's unreached contacts whose last outcome is one of `outcomes` into the child as
     * fresh contacts, and links the two; returns how many were copied. Fails with "AlreadyRedialed" when
     * the parent was redialed before.
     */
    readonly copyForRedial: (input: {
      readonly parentId: CampaignId
      readonly childId: CampaignId
      readonly outcomes: ReadonlyArray<string>
      readonly now: string
    }) => Effect.Effect<number | "AlreadyRedialed">
  }
>() {}
