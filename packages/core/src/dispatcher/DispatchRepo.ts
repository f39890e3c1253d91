import type {
  AttemptId,
  CampaignId,
  ContactId,
  OrganizationId,
  RunId,
  TelephonyConfigurationId,
  WorkflowId
} from "@agentline/api/Ids"
import { Context, type Effect, type Option } from "effect"
import type { CircuitBreakerConfig, RetryConfig, ScheduleConfig } from "@agentline/api/campaigns/CampaignSettings"
import type { CampaignState } from "@agentline/api/campaigns/Campaign"
import type { CallOutcome } from "@agentline/telephony-kit/TelephonyProvider"
import type { AttemptResult, ContactNext } from "./ContactOutcome.js"

/** A campaign as the dispatcher needs it. Settings are the effective (defaulted) values. */
export interface DispatchCampaign {
  readonly id: CampaignId
  readonly organizationId: OrganizationId
  readonly workflowId: WorkflowId
  readonly state: CampaignState
  readonly telephonyConfigurationId: TelephonyConfigurationId | null
  readonly maxConcurrency: number | null
  readonly retry: RetryConfig
  readonly schedule: ScheduleConfig | null
  readonly breaker: CircuitBreakerConfig
}

export interface DueContact {
  readonly id: ContactId
  readonly timezone: string | null
}

export interface ClaimedContact {
  readonly attemptId: AttemptId
  readonly contactId: ContactId
  readonly phoneNumber: string
  readonly initialContext: Record<string, unknown>
  /** 1 for the first call of the contact. */
  readonly attemptNumber: number
}

/** One call attempt as stored: a campaign contact's or a single call's. */
export interface StoredAttempt {
  readonly id: AttemptId
  readonly organizationId: OrganizationId
  readonly campaignId: CampaignId | null
  readonly contactId: ContactId | null
  readonly runId: RunId | null
  readonly telephonyConfigurationId: TelephonyConfigurationId | null
  readonly provider: string
  readonly providerCallId: string | null
  /** claimed: holds a slot, not yet handed to the provider; dialing: handed to it. */
  readonly state: "claimed" | "dialing" | "ended" | "interrupted"
  readonly attemptNumber: number
  readonly nodeId: string
  readonly outcome: CallOutcome | "interrupted" | null
}

/** An attempt not yet ended, as found after a restart or a lost lease. */
export type OpenAttempt = StoredAttempt & { readonly state: "claimed" | "dialing" }

export interface Lease {
  readonly nodeId: string
  readonly now: string
  readonly leaseUntil: string
}

/**
 * Storage port of the dispatcher. Every method is one atomic operation: claims lock the organization
 * so concurrency limits hold across processes, and contact/attempt transitions are guarded by their
 * current state so that nothing is dialed twice and a duplicate event changes nothing. Campaign
 * state is not written here: that is `CampaignsRepo.transition`'s alone.
 */
export class DispatchRepo extends Context.Tag("@agentline/core/DispatchRepo")<
  DispatchRepo,
  {
    readonly registerNode: (input: { readonly nodeId: string; readonly now: string }) => Effect.Effect<void>
    /** Renews the node's heartbeat and the leases of its campaigns; returns the campaigns it still owns. */
    readonly heartbeat: (lease: Lease) => Effect.Effect<ReadonlyArray<CampaignId>>
    /** Takes ownership of running campaigns nobody owns (or whose owner's lease ran out). */
    readonly acquireCampaigns: (lease: Lease) => Effect.Effect<ReadonlyArray<CampaignId>>
    readonly releaseCampaign: (input: { readonly campaignId: CampaignId; readonly nodeId: string }) => Effect.Effect<void>
    readonly loadCampaign: (campaignId: CampaignId) => Effect.Effect<Option.Option<DispatchCampaign>>
    /** Queued contacts whose time has come, oldest due first. */
    readonly dueContacts: (input: {
      readonly campaignId: CampaignId
      readonly now: string
      readonly limit: number
    }) => Effect.Effect<ReadonlyArray<DueContact>>
    /** Moves contacts' next attempt to when their calling window opens. */
    readonly deferContacts: (
      deferrals: ReadonlyArray<{ readonly contactId: ContactId; readonly until: string }>
    ) => Effect.Effect<void>
    /**
     * Claims up to as many of `contactIds` as both limits allow right now: the campaign's
     * (`campaignLimit` calls in progress) and the organization's (shared with single calls).
     */
    readonly claim: (input: {
      readonly campaignId: CampaignId
      readonly organizationId: OrganizationId
      readonly contactIds: ReadonlyArray<ContactId>
      readonly campaignLimit: number
      readonly provider: string
      readonly telephonyConfigurationId: TelephonyConfigurationId
      readonly nodeId: string
      readonly now: string
      /** When a claim still not handed to the provider is taken for lost (see `overdueAttempts`). */
      readonly reconcileAt: string
    }) => Effect.Effect<{
      readonly claimed: ReadonlyArray<ClaimedContact>
      /**
       * Contacts of this batch whose number is on the organization's do-not-call list: ended `skipped`
       * (last outcome `do_not_call`) in the same transaction, never dialed.
       */
      readonly skipped: number
      /** Which limit is the tighter one now: what a loop that claimed nothing waits on. */
      readonly heldBackBy: "campaign" | "organization"
    }>
    /** Reserves an organization slot for a single call; `None` when the organization is at its limit. */
    readonly claimSingle: (input: {
      readonly organizationId: OrganizationId
      readonly to: string
      readonly provider: string
      readonly telephonyConfigurationId: TelephonyConfigurationId
      readonly nodeId: string
      readonly now: string
      readonly reconcileAt: string
    }) => Effect.Effect<Option.Option<AttemptId>>
    /**
     * The attempts are handed to the provider: from here on only the provider knows their fate. One that
     * has not ended by its `reconcileAt` (the agent's longest call and a margin) is asked about.
     */
    readonly markDialing: (
      attempts: ReadonlyArray<{
        readonly attemptId: AttemptId
        readonly runId: RunId
        readonly from: string | null
        readonly reconcileAt: string
      }>
    ) => Effect.Effect<void>
    /** The providers' ids of the attempts' calls (recovery asks the provider by them). */
    readonly setProviderCallIds: (
      calls: ReadonlyArray<{ readonly attemptId: AttemptId; readonly providerCallId: string }>
    ) => Effect.Effect<void>
    /**
     * Ends open attempts and moves their contacts on (`contactNext`), updating their campaigns'
     * counters, in a few statements for the batch. Returns, per input and in order, whether it ended
     * the attempt: false when it had already ended (a duplicate or late event), and nothing changes then.
     */
    readonly finishAttempts: (
      ends: ReadonlyArray<{
        readonly attemptId: AttemptId
        readonly outcome: AttemptResult
        /** Exact (calls may last a fraction of a second more than a whole number). */
        readonly durationMillis: number
        readonly contactNext: ContactNext | undefined
        readonly now: string
      }>
    ) => Effect.Effect<ReadonlyArray<boolean>>
    /**
     * A claimed attempt that never reached the provider: its slot comes back and its contact is queued
     * again as if never claimed. Nothing happens once it is `dialing` (the provider may have the call).
     */
    readonly releaseClaimed: (attemptId: AttemptId) => Effect.Effect<void>
    /** Asks about the attempt again at `reconcileAt` (the provider said the call is still in progress). */
    readonly postpone: (input: { readonly attemptId: AttemptId; readonly reconcileAt: string }) => Effect.Effect<void>
    /** The earliest next attempt among queued contacts (null: due now), or None when none is queued. */
    readonly nextDue: (campaignId: CampaignId) => Effect.Effect<Option.Option<string | null>>
    /**
     * Open attempts of nodes other than `nodeId` that stopped (retired, or heartbeat older than
     * `staleBefore`): of one campaign, or all of them.
     */
    readonly orphanedAttempts: (input: {
      readonly nodeId: string
      readonly staleBefore: string
      readonly campaignId?: CampaignId
    }) => Effect.Effect<ReadonlyArray<OpenAttempt>>
    /** This node's open attempts whose `reconcileAt` has passed, oldest first. */
    readonly overdueAttempts: (input: {
      readonly nodeId: string
      readonly now: string
      readonly limit: number
    }) => Effect.Effect<ReadonlyArray<OpenAttempt>>
    /** This node's open attempts: of one campaign, or all of them. */
    readonly openAttemptsOf: (input: {
      readonly nodeId: string
      readonly campaignId?: CampaignId
    }) => Effect.Effect<ReadonlyArray<OpenAttempt>>
    /** The node stopped for good: its open attempts are orphans for the other nodes at once. */
    readonly retireNode: (nodeId: string) => Effect.Effect<void>
    readonly findAttempt: (attemptId: AttemptId) => Effect.Effect<Option.Option<StoredAttempt>>
  }
>() {}
