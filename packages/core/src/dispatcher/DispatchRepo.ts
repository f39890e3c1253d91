import { Context, type Effect, type Option } from "effect"
import type { CallOutcome } from "../telephony/TelephonyProvider.js"
import type { AttemptResult, ContactNext, RetryPolicy } from "./ContactOutcome.js"

/** A campaign as the dispatcher needs it. Settings are the effective (defaulted) values. */
export interface DispatchCampaign {
  readonly id: number
  readonly organization_id: number
  readonly workflow_id: number
  readonly name: string
  readonly state: string
  readonly telephony_configuration_id: number | null
  readonly max_concurrency: number | null
  readonly retry_config: RetryPolicy
  readonly schedule_config: unknown
  readonly circuit_breaker: {
    readonly enabled: boolean
    readonly failure_threshold: number
    readonly window_seconds: number
    readonly min_calls_in_window: number
  }
}

export interface DueContact {
  readonly id: number
  readonly timezone: string | null
}

export interface ClaimedContact {
  readonly attemptId: number
  readonly contactId: number
  readonly rowNumber: number
  readonly phoneNumber: string
  readonly timezone: string | null
  readonly initialContext: Record<string, unknown>
  readonly attemptNumber: number
}

/** An attempt not yet ended, as found after a restart or a lost lease. */
export interface OpenAttempt {
  readonly id: number
  readonly organization_id: number
  readonly campaign_id: number | null
  readonly contact_id: number | null
  readonly run_id: number | null
  readonly telephony_configuration_id: number | null
  readonly provider: string
  readonly provider_call_id: string | null
  readonly state: "claimed" | "dialing"
  readonly attempt_number: number
  readonly node_id: string
}

export interface CampaignLogEntry {
  readonly ts: string
  readonly level: "info" | "warning" | "error"
  readonly event: string
  readonly message: string
  readonly details: Record<string, unknown>
}

/**
 * Storage port of the dispatcher. Every method is one atomic operation: claims lock the organization
 * so concurrency limits hold across processes, and contact/attempt transitions are guarded by their
 * current state so that nothing is dialed twice and a duplicate event changes nothing.
 */
export class DispatchRepo extends Context.Tag("@agentline/core/DispatchRepo")<
  DispatchRepo,
  {
    readonly registerNode: (nodeId: string, now: string) => Effect.Effect<void>
    /** Renews the node's heartbeat and the leases of its campaigns; returns the campaigns it still owns. */
    readonly heartbeat: (nodeId: string, now: string, leaseUntil: string) => Effect.Effect<ReadonlyArray<number>>
    /** Takes ownership of running campaigns nobody owns (or whose owner's lease ran out). */
    readonly acquireCampaigns: (nodeId: string, now: string, leaseUntil: string) => Effect.Effect<ReadonlyArray<number>>
    readonly releaseCampaign: (campaignId: number, nodeId: string) => Effect.Effect<void>
    readonly loadCampaign: (campaignId: number) => Effect.Effect<Option.Option<DispatchCampaign>>
    /** Queued contacts whose time has come, oldest due first. */
    readonly dueContacts: (campaignId: number, now: string, limit: number) => Effect.Effect<ReadonlyArray<DueContact>>
    /** Moves contacts' next attempt to when their calling window opens. */
    readonly deferContacts: (deferrals: ReadonlyArray<{ readonly id: number; readonly until: string }>) => Effect.Effect<void>
    /**
     * Claims up to as many of `contactIds` as both limits allow right now: the campaign's
     * (`campaignLimit` calls in progress) and the organization's (shared with single calls).
     */
    readonly claim: (input: {
      readonly campaignId: number
      readonly organizationId: number
      readonly contactIds: ReadonlyArray<number>
      readonly campaignLimit: number
      readonly provider: string
      readonly telephonyConfigurationId: number
      readonly nodeId: string
      readonly now: string
    }) => Effect.Effect<ReadonlyArray<ClaimedContact>>
    /** Reserves an organization slot for a single call; `None` when the organization is at its limit. */
    readonly claimSingle: (input: {
      readonly organizationId: number
      readonly to: string
      readonly provider: string
      readonly telephonyConfigurationId: number
      readonly nodeId: string
      readonly now: string
    }) => Effect.Effect<Option.Option<number>>
    /** The attempt is handed to the provider: from here on only the provider knows its fate. */
    readonly markDialing: (attemptId: number, runId: number, from: string | null) => Effect.Effect<void>
    readonly setProviderCallId: (attemptId: number, providerCallId: string) => Effect.Effect<void>
    /**
     * Ends an open attempt and moves its contact on (`contactNext`), updating the campaign's counters.
     * Returns false when the attempt had already ended (duplicate or late event): nothing changes then.
     */
    readonly finishAttempt: (input: {
      readonly attemptId: number
      readonly outcome: AttemptResult
      readonly durationSeconds: number
      readonly contactNext: ContactNext | undefined
      readonly now: string
    }) => Effect.Effect<boolean>
    /** A claimed attempt that never reached the provider: the contact is queued again as if never claimed. */
    readonly releaseClaimed: (attemptId: number) => Effect.Effect<void>
    /** The earliest next attempt among queued contacts (null: due now), or None when none is queued. */
    readonly nextDue: (campaignId: number) => Effect.Effect<Option.Option<string | null>>
    /** Completes a running campaign when no contact is queued or dialing; true when it did. */
    readonly tryComplete: (campaignId: number, entry: CampaignLogEntry) => Effect.Effect<boolean>
    /** Moves the campaign from one of `from` to `to` with a log entry; false when it was in another state. */
    readonly setState: (
      campaignId: number,
      from: ReadonlyArray<string>,
      to: string,
      entry: CampaignLogEntry
    ) => Effect.Effect<boolean>
    /** Open attempts of nodes other than `nodeId` whose heartbeat is older than `staleBefore`. */
    readonly orphanedAttempts: (input: {
      readonly nodeId: string
      readonly staleBefore: string
      readonly campaignId: number | null
    }) => Effect.Effect<ReadonlyArray<OpenAttempt>>
    readonly findAttempt: (attemptId: number) => Effect.Effect<Option.Option<OpenAttempt & { readonly outcome: CallOutcome | null }>>
  }
>() {}
