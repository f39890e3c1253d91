import { Context, type Effect, type Option } from "effect"
import type { CampaignLogEntry } from "../dispatcher/DispatchRepo.js"
import type { Campaign } from "./Campaign.js"
import type { ContactRow } from "./CsvImport.js"

export type StoredCampaign = Campaign & { readonly organization_id: number }

export interface CampaignSettingsUpdate {
  readonly name?: string
  readonly retry_config?: unknown
  readonly max_concurrency?: number | null
  readonly schedule_config?: unknown
  readonly circuit_breaker?: unknown
}

/** Storage port for campaigns and their contacts (dialing state is the dispatcher's port). */
export class CampaignsRepo extends Context.Tag("@agentline/core/CampaignsRepo")<
  CampaignsRepo,
  {
    readonly insert: (input: {
      readonly organization_id: number
      readonly name: string
      readonly workflow_id: number
      readonly telephony_configuration_id: number | null
      readonly source_type: string
      readonly source_id: string
      readonly retry_config: unknown
      readonly max_concurrency: number | null
      readonly schedule_config: unknown
      readonly circuit_breaker: unknown
      readonly parent_campaign_id: number | null
      readonly log: CampaignLogEntry
      readonly now: string
    }) => Effect.Effect<StoredCampaign>
    /** Inserts a batch; returns the row numbers NOT inserted because the number was already in the campaign. */
    readonly insertContacts: (
      campaignId: number,
      organizationId: number,
      rows: ReadonlyArray<ContactRow>,
      now: string
    ) => Effect.Effect<ReadonlyArray<number>>
    /** Records the import's size: `total_rows` and the initially queued attempts. */
    readonly setImported: (campaignId: number, contacts: number) => Effect.Effect<void>
    readonly find: (organizationId: number, id: number) => Effect.Effect<Option.Option<StoredCampaign>>
    readonly list: (
      organizationId: number,
      page: { readonly offset: number; readonly limit: number }
    ) => Effect.Effect<{ readonly campaigns: ReadonlyArray<StoredCampaign>; readonly total: number }>
    /** Updates settings only while the campaign is in one of `allowedStates`; `None` otherwise or when missing. */
    readonly updateSettings: (
      organizationId: number,
      id: number,
      update: CampaignSettingsUpdate,
      allowedStates: ReadonlyArray<string>,
      now: string
    ) => Effect.Effect<Option.Option<StoredCampaign>>
    /**
     * Moves the campaign from one of `from` to `to` with a log entry, atomically. `started_at` is set on
     * the first start; `resetBreaker` restarts the breaker's window. `None` when it was in another state.
     */
    readonly transition: (input: {
      readonly organization_id: number
      readonly id: number
      readonly from: ReadonlyArray<string>
      readonly to: string
      readonly log: CampaignLogEntry
      readonly now: string
      readonly markStarted?: boolean
      readonly resetBreaker?: boolean
    }) => Effect.Effect<Option.Option<StoredCampaign>>
    /**
     * Copies the parent's unreached contacts whose last outcome is one of `outcomes` into the child as
     * fresh contacts, and links the two; returns how many were copied. Fails with "AlreadyRedialed" when
     * the parent was redialed before.
     */
    readonly copyForRedial: (input: {
      readonly parentId: number
      readonly childId: number
      readonly outcomes: ReadonlyArray<string>
      readonly now: string
    }) => Effect.Effect<number | "AlreadyRedialed">
  }
>() {}
