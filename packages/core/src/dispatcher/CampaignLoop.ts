/**
 * The loop of one running campaign this process owns: claim what both limits allow among the contacts
 * that are due and inside their calling window (deferring the others to their window's opening), place
 * those calls, and sleep until a call ends, a retry or window is due, or the campaign is paused. It
 * completes the campaign in the pass that finds nothing queued or dialing.
 */
import { type CampaignId, type ContactId, TelephonyConfigurationId } from "@agentline/api/Ids"
import { Clock, Effect, Either, Metric, Option, Queue } from "effect"
import { isWithinSchedule, nextWindowStart } from "../campaigns/CallingWindow.js"
import { logEntry } from "../campaigns/CampaignLog.js"
import type { ScheduleConfig } from "@agentline/api/campaigns/CampaignSettings"
import { CampaignTransitions } from "../campaigns/CampaignTransitions.js"
import { OrganizationsRepo } from "../organizations/OrganizationsRepo.js"
import { OutboundRouting, type OutboundRoute } from "../telephony/OutboundRouting.js"
import { iso } from "../Time.js"
import { Transactor } from "../Transactor.js"
import { type StoredWorkflow, WorkflowsRepo } from "../workflows/WorkflowsRepo.js"
import { Attempts } from "./Attempts.js"
import { BreakerWindow } from "./BreakerWindow.js"
import { CallerIds } from "./CallerIds.js"
import { claimDeadline } from "./Deadlines.js"
import { DispatcherSettings } from "./DispatcherSettings.js"
import { type ClaimedContact, type DispatchCampaign, DispatchRepo, type DueContact } from "./DispatchRepo.js"
import { Recovery } from "./Recovery.js"
import { Wakeups } from "./Wakeups.js"
import { claimDuration, refillDuration, SpanNames } from "../Telemetry.js"

/** How long the route, agent and organization limit are reused by a busy loop (the claim enforces limits anyway). */
const CONTEXT_TTL_MILLIS = 1000
const WEEK_MILLIS = 7 * 24 * 3600 * 1000

/** Which due contacts may be called now, and until when the others wait for their window. */
export const partitionBySchedule = (
  due: ReadonlyArray<DueContact>,
  schedule: ScheduleConfig | null,
  at: number
): { readonly ready: ReadonlyArray<ContactId>; readonly deferrals: ReadonlyArray<{ readonly contactId: ContactId; readonly until: string }> } => {
  const ready: Array<ContactId> = []
  const deferrals: Array<{ contactId: ContactId; until: string }> = []
  for (const contact of due) {
    const zone = contact.timezone ?? undefined
    if (isWithinSchedule(schedule, at, zone)) ready.push(contact.id)
    else {
      // A schedule that never opens keeps the contact waiting a week at a time (validated schedules always open).
      deferrals.push({ contactId: contact.id, until: iso(nextWindowStart(schedule, at, zone) ?? at + WEEK_MILLIS) })
    }
  }
  return { ready, deferrals }
}

/** The run's initial context for a campaign call (the contact's CSV columns plus what describes the call). */
const campaignContext = (campaign: DispatchCampaign, contact: ClaimedContact, route: OutboundRoute, from: string | null) => ({
  ...contact.initialContext,
  campaign_id: campaign.id,
  attempt_number: contact.attemptNumber,
  ...(contact.attemptNumber > 1 ? { is_retry: true, retry_attempt: contact.attemptNumber - 1 } : {}),
  phone_number: contact.phoneNumber,
  called_number: contact.phoneNumber,
  caller_number: from,
  provider: route.provider.name,
  direction: "outbound",
  telephony_configuration_id: route.configurationId
})

interface LoopContext {
  readonly at: number
  readonly configurationId: number | null
  readonly route: OutboundRoute
  readonly workflow: StoredWorkflow
  readonly limit: number
}

export class CampaignLoop extends Effect.Service<CampaignLoop>()("@agentline/core/dispatcher/CampaignLoop", {
  effect: Effect.gen(function*() {
    const repo = yield* DispatchRepo
    const transitions = yield* CampaignTransitions
    const routing = yield* OutboundRouting
    const workflows = yield* WorkflowsRepo
    const organizations = yield* OrganizationsRepo
    const attempts = yield* Attempts
    const callerIds = yield* CallerIds
    const wakeups = yield* Wakeups
    const breaker = yield* BreakerWindow
    const recovery = yield* Recovery
    const settings = yield* DispatcherSettings
    const tx = yield* Transactor

    /** One pass: claim what the limits allow and place those calls. Returns how many were claimed, skipped and due. */
    const dialDue = (campaign: DispatchCampaign, context: LoopContext) =>
      Effect.gen(function*() {
        const at = yield* Clock.currentTimeMillis
        const due = yield* repo.dueContacts({ campaignId: campaign.id, now: iso(at), limit: settings.claimBatch })
        const { deferrals, ready } = partitionBySchedule(due, campaign.schedule, at)
        if (deferrals.length > 0) yield* repo.deferContacts(deferrals)
        if (ready.length === 0) {
          // Nothing waits for a slot: a slot freed now is no refill.
          yield* wakeups.takeFreedAt(campaign.id)
          return { claimed: 0, skipped: 0, due: 0, heldBackBy: "campaign" as const }
        }
        const route = context.route
        // Uninterruptible: a lost lease stops the loop between batches, never between a claim and its
        // calls. The claims, their runs and `dialing` commit together: a crash before the commit leaves
        // the contacts queued, after it the provider is asked about each attempt (recovery).
        return yield* Effect.uninterruptible(Effect.gen(function*() {
          const claimStart = yield* Clock.currentTimeMillis
          const { begun, heldBackBy, skipped } = yield* tx.withTransaction(Effect.gen(function*() {
            const { claimed, heldBackBy, skipped } = yield* repo.claim({
              campaignId: campaign.id,
              organizationId: campaign.organizationId,
              contactIds: ready,
              campaignLimit: Math.min(campaign.maxConcurrency ?? context.limit, context.limit),
              provider: route.provider.name,
              telephonyConfigurationId: TelephonyConfigurationId.make(route.configurationId),
              nodeId: settings.nodeId,
              now: iso(at),
              reconcileAt: iso(claimDeadline(at, settings.reconcileMarginSeconds))
            })
            const calls = claimed.map((contact) => ({ contact, from: callerIds.next(route) }))
            const begun = yield* attempts.open(calls.map(({ contact, from }) => ({
              attemptId: contact.attemptId,
              organizationId: campaign.organizationId,
              campaign,
              contactId: contact.contactId,
              workflow: context.workflow,
              attemptNumber: contact.attemptNumber,
              route,
              from,
              name: `WR-CAMPAIGN-${campaign.id}-${contact.contactId}-${contact.attemptNumber}`,
              initialContext: campaignContext(campaign, contact, route, from),
              at
            })))
            return { begun: begun.map(({ attempt }, i) => ({ attempt, ...calls[i]! })), skipped, heldBackBy }
          }))
          const claimed = yield* Clock.currentTimeMillis
          yield* Metric.update(claimDuration, (claimed - claimStart) / 1000)
          const freedAt = yield* wakeups.takeFreedAt(campaign.id)
          if (begun.length > 0 && freedAt !== undefined) yield* Metric.update(refillDuration, (claimed - freedAt) / 1000)
          for (const { attempt, contact, from } of begun) {
            yield* attempts.track(attempt)
            yield* attempts.dial(attempt, route, contact.phoneNumber, from)
          }
          yield* Effect.annotateCurrentSpan({ "agentline.claimed": begun.length, "agentline.skipped": skipped })
          return { claimed: begun.length, skipped, due: ready.length, heldBackBy }
        }))
      }).pipe(
        Effect.withSpan(SpanNames.claim, {
          root: true,
          attributes: { "agentline.campaign_id": campaign.id, "agentline.organization_id": campaign.organizationId }
        }),
        // The loop around it is not traced (see `run`).
        Effect.withTracerEnabled(true)
      )

    const waitForSignal = (queue: Queue.Queue<void>, untilMillis: number | null) =>
      Effect.gen(function*() {
        const at = yield* Clock.currentTimeMillis
        // The timer is a fallback for events this process cannot see (another process freed an
        // organization slot); calls ending here signal at once.
        const fallback = settings.recheckMillis
        const delay = untilMillis === null ? fallback : Math.max(0, Math.min(untilMillis - at, fallback))
        yield* Effect.raceFirst(Queue.take(queue), Effect.sleep(delay))
        yield* Queue.takeAll(queue)
      })

    /**
     * The route (decrypted credentials, caller ids), the agent and the organization's limit change
     * rarely: re-read at most once a second instead of on every pass of a busy loop. `Left` when the
     * campaign cannot be dialed any more (it failed, or its agent or organization is gone).
     */
    const refreshContext = (campaign: DispatchCampaign, previous: LoopContext | undefined) =>
      Effect.gen(function*() {
        const at = yield* Clock.currentTimeMillis
        if (previous !== undefined && at - previous.at <= CONTEXT_TTL_MILLIS && previous.configurationId === campaign.telephonyConfigurationId) {
          return Either.right(previous)
        }
        const route = yield* routing.resolve(campaign.organizationId, campaign.telephonyConfigurationId).pipe(Effect.either)
        if (Either.isLeft(route)) {
          yield* transitions.apply({
            campaignId: campaign.id,
            action: "fail",
            log: logEntry(at, "error", "telephony_unavailable", `Cannot dial: ${route.left.message}`)
          })
          return Either.left("failed" as const)
        }
        const workflow = yield* workflows.find(campaign.organizationId, campaign.workflowId)
        const organization = yield* organizations.findById(campaign.organizationId)
        if (Option.isNone(workflow) || Option.isNone(organization)) return Either.left("gone" as const)
        return Either.right<LoopContext>({
          at,
          configurationId: campaign.telephonyConfigurationId,
          route: route.right,
          workflow: workflow.value,
          limit: organization.value.concurrent_call_limit
        })
      })

    const loop = (campaignId: CampaignId, queue: Queue.Queue<void>) =>
      Effect.gen(function*() {
        let context: LoopContext | undefined
        let waitingFor: "campaign" | "organization" = "organization"
        while (true) {
          const loaded = yield* repo.loadCampaign(campaignId)
          if (Option.isNone(loaded) || loaded.value.state !== "running") return
          const campaign = loaded.value
          const refreshed = yield* refreshContext(campaign, context)
          if (Either.isLeft(refreshed)) return
          context = refreshed.right
          const { claimed, due, heldBackBy, skipped } = yield* dialDue(campaign, context)
          // Contacts skipped for the do-not-call list are progress too: the next ones are due now.
          if (claimed > 0 || skipped > 0) {
            yield* Effect.yieldNow()
            continue
          }
          if (due > 0) {
            // At a limit: wait for a call to end (of this campaign, or of the organization if its limit is the tighter).
            if (heldBackBy !== waitingFor) {
              waitingFor = heldBackBy
              yield* wakeups.waitFor(campaignId, heldBackBy)
              // A call of another campaign may have ended during the claim, unseen by a loop that waited
              // for its own campaign's: claim once more before sleeping.
              if (heldBackBy === "organization") continue
            }
            yield* waitForSignal(queue, null)
            continue
          }
          const at = yield* Clock.currentTimeMillis
          const completed = yield* transitions.apply({
            campaignId,
            action: "complete",
            log: logEntry(at, "info", "campaign_completed", "Every contact reached a final outcome")
          })
          if (Option.isSome(completed)) return
          const next = yield* repo.nextDue(campaignId)
          yield* waitForSignal(queue, Option.match(next, { onNone: () => null, onSome: (t) => (t === null ? at : Date.parse(t)) }))
        }
      })

    /** Dials the campaign until it stops running (or this process loses it); settles its orphans first. */
    const run = (campaignId: CampaignId) =>
      Effect.gen(function*() {
        const first = yield* repo.loadCampaign(campaignId)
        if (Option.isNone(first)) return
        const queue = yield* wakeups.subscribe(campaignId, first.value.organizationId)
        yield* breaker.reset(campaignId)
        // The lease may have changed hands: what the previous owner (another process, or a loop of this
        // one that died) left open is settled before anything new is claimed.
        yield* recovery.reconcile(campaignId)
        yield* recovery.recoverOwn(campaignId)
        yield* loop(campaignId, queue)
      }).pipe(
        Effect.scoped,
        Effect.ensuring(repo.releaseCampaign({ campaignId, nodeId: settings.nodeId })),
        Effect.catchAllCause((cause) => Effect.logError(`Campaign ${campaignId} loop failed`, cause)),
        Effect.annotateLogs({ campaign_id: campaignId }),
        // Not one span for the campaign's whole life (hours, and every query of every pass under it): each
        // claim is a span of its own (`SpanNames.claim`), each call a trace of its own; the loop's other
        // queries (loading the campaign, waiting) are not traced.
        Effect.withTracerEnabled(false)
      )

    return { run } as const
  }),
  dependencies: [Attempts.Default, BreakerWindow.Default, CallerIds.Default, Recovery.Default, Wakeups.Default]
}) {}
