/**
 * The dispatcher: dials campaigns and single calls.
 *
 * - Every contact and attempt is a durable row (see `DispatchRepo`); claiming is one atomic database
 *   operation that enforces both the campaign's and the organization's limit, so concurrency is exact
 *   even with several processes on one PostgreSQL.
 * - Each running campaign this process owns (a lease, renewed by a heartbeat) has one loop fiber. The
 *   loop is event driven: a finished call signals its organization's loops at once, which claim the
 *   next contacts; a loop with nothing to do sleeps until the next retry or calling window is due.
 * - A campaign completes the moment its last contact is final and no call is in progress.
 * - After a crash, attempts left open are reconciled with the provider; one whose fate cannot be
 *   learned is recorded `interrupted` and never dialed again.
 *
 * All time comes from Effect's Clock, so TestClock drives retries, windows and simulated calls.
 */
import { Clock, Context, Effect, Either, FiberMap, FiberSet, Layer, Option, Queue, Ref } from "effect"
import * as Crypto from "node:crypto"
import { evaluateBreaker, breakerMessage, isBreakerFailure, type BreakerOutcome } from "../campaigns/CircuitBreaker.js"
import { isWithinSchedule, nextWindowStart } from "../campaigns/CallingWindow.js"
import type { ScheduleConfig } from "../campaigns/CampaignSettings.js"
import { BadRequest, TooManyRequests } from "../Errors.js"
import { OrganizationsRepo } from "../organizations/OrganizationsRepo.js"
import { RunsRepo } from "../runs/RunsRepo.js"
import { OutboundRouting, type OutboundRoute } from "../telephony/OutboundRouting.js"
import type { CallEvent } from "../telephony/TelephonyProvider.js"
import { Transactor } from "../Transactor.js"
import type { StoredWorkflow } from "../workflows/WorkflowsRepo.js"
import { WorkflowsRepo } from "../workflows/WorkflowsRepo.js"
import { type AttemptResult, callTags, nextForContact, type RetryPolicy } from "./ContactOutcome.js"
import { type CampaignLogEntry, type DispatchCampaign, DispatchRepo, type OpenAttempt } from "./DispatchRepo.js"

export interface DispatcherOptions {
  /** This process's identity in leases and attempts. */
  readonly nodeId: string
  /** How long a campaign lease lasts without a heartbeat; another process may take over after that. */
  readonly leaseSeconds: number
  /** How often unowned running campaigns are looked for (start and resume also look at once). */
  readonly acquireIntervalMillis: number
  /** Contacts considered per claim. */
  readonly claimBatch: number
  /**
   * How long an idle loop waits before looking again without a signal: only events another process
   * causes (a slot freed elsewhere) are not signalled here.
   */
  readonly recheckMillis: number
  /** Base of provider callback URLs (`{base}/api/v1/telephony/callbacks/{provider}/{attempt}`). */
  readonly callbackBaseUrl: string
}

export class DispatcherSettings extends Context.Tag("@agentline/core/DispatcherSettings")<DispatcherSettings, DispatcherOptions>() {
  static layer = (options: Partial<DispatcherOptions> & { readonly callbackBaseUrl: string }) =>
    Layer.succeed(DispatcherSettings, {
      nodeId: options.nodeId ?? `node-${Crypto.randomUUID()}`,
      leaseSeconds: options.leaseSeconds ?? 15,
      acquireIntervalMillis: options.acquireIntervalMillis ?? 1000,
      claimBatch: options.claimBatch ?? 200,
      recheckMillis: options.recheckMillis ?? 5000,
      callbackBaseUrl: options.callbackBaseUrl
    })
}

/** What the dispatcher keeps in memory about a call in progress (rebuilt from storage after a restart). */
interface LiveAttempt {
  readonly attemptId: number
  readonly organizationId: number
  readonly campaignId: number | null
  readonly contactId: number | null
  readonly workflowId: number
  readonly runId: number
  readonly attemptNumber: number
  readonly retry: RetryPolicy | undefined
  readonly breaker: DispatchCampaign["circuit_breaker"] | undefined
  readonly provider: string
  readonly events: Array<{ readonly status: string; readonly timestamp: string; readonly duration?: number }>
  providerCallId: string | null
}

const iso = (millis: number) => new Date(millis).toISOString()

const CONTEXT_TTL_MILLIS = 1000

const logEntry = (
  now: number,
  level: CampaignLogEntry["level"],
  event: string,
  message: string,
  details: Record<string, unknown> = {}
): CampaignLogEntry => ({ ts: iso(now), level, event, message, details })

export class Dispatcher extends Effect.Service<Dispatcher>()("@agentline/core/Dispatcher", {
  scoped: Effect.gen(function*() {
    const repo = yield* DispatchRepo
    const runs = yield* RunsRepo
    const workflows = yield* WorkflowsRepo
    const organizations = yield* OrganizationsRepo
    const routing = yield* OutboundRouting
    const tx = yield* Transactor
    const settings = yield* DispatcherSettings

    const loops = yield* FiberMap.make<number>()
    const calls = yield* FiberSet.make()
    const live = new Map<number, LiveAttempt>()
    const signals = new Map<number, { readonly organizationId: number; readonly queue: Queue.Queue<void> }>()
    const breakers = new Map<number, Array<BreakerOutcome>>()
    const rotation = new Map<number, number>()
    const knownDispositions = new Map<number, Set<string>>()
    const peak = yield* Ref.make({ inProgress: 0, peak: 0 })

    const now = Clock.currentTimeMillis

    const wakeOrganization = (organizationId: number) =>
      Effect.forEach(
        [...signals.values()].filter((s) => s.organizationId === organizationId),
        (s) => Queue.offer(s.queue, undefined),
        { discard: true }
      )

    const callerId = (route: OutboundRoute): string | null => {
      if (route.defaultCallerId !== null) return route.defaultCallerId
      if (route.callerIds.length === 0) return null
      const i = rotation.get(route.configurationId) ?? 0
      rotation.set(route.configurationId, i + 1)
      return route.callerIds[i % route.callerIds.length]!
    }

    // ---------------------------------------------------------------- finishing a call

    const recordDisposition = (workflowId: number, outcome: string) =>
      Effect.suspend(() => {
        const known = knownDispositions.get(workflowId) ?? new Set<string>()
        knownDispositions.set(workflowId, known)
        if (known.has(outcome)) return Effect.void
        known.add(outcome)
        return workflows.addDispositionCodes(workflowId, [outcome])
      })

    const recordBreaker = (attempt: LiveAttempt, outcome: AttemptResult, reason: string) =>
      Effect.gen(function*() {
        if (attempt.campaignId === null || outcome === "interrupted") return
        // The breaker's settings as of the claim (a PATCH needs a pause, which restarts the loop).
        const config = attempt.breaker
        if (config === undefined || !config.enabled) return
        const at = yield* now
        const window = (breakers.get(attempt.campaignId) ?? []).filter((o) => o.at > at - config.window_seconds * 1000)
        window.push({ at, failure: isBreakerFailure(outcome), runId: attempt.runId, reason })
        breakers.set(attempt.campaignId, window)
        const result = evaluateBreaker(config, window, at)
        if (!result.trip) return
        const tripped = yield* repo.setState(
          attempt.campaignId,
          ["running"],
          "paused",
          logEntry(at, "warning", "circuit_breaker_tripped", breakerMessage(result, config), {
            failure_rate: result.failureRate,
            failure_count: result.failureCount,
            success_count: result.successCount,
            threshold: config.failure_threshold,
            window_seconds: config.window_seconds,
            min_calls_in_window: config.min_calls_in_window,
            recent_failures: result.recentFailures
          })
        )
        if (tripped) {
          breakers.delete(attempt.campaignId)
          yield* wakeOrganization(attempt.organizationId)
        }
      })

    const finish = (
      attempt: LiveAttempt,
      outcome: AttemptResult,
      durationSeconds: number,
      extra: { readonly hangupCause?: string; readonly error?: string } = {}
    ) =>
      Effect.gen(function*() {
        const at = yield* now
        const contactNext = attempt.contactId !== null && attempt.retry !== undefined
          ? nextForContact(outcome, attempt.attemptNumber, attempt.retry, at)
          : undefined
        attempt.events.push({ status: outcome === "interrupted" ? "interrupted" : "ended", timestamp: iso(at), duration: durationSeconds })
        const finished = yield* tx.withTransaction(Effect.gen(function*() {
          const ok = yield* repo.finishAttempt({ attemptId: attempt.attemptId, outcome, durationSeconds, contactNext, now: iso(at) })
          if (ok) {
            yield* runs.update(attempt.runId, {
              is_completed: true,
              gathered_context: {
                outcome,
                call_disposition: outcome,
                mapped_call_disposition: outcome,
                call_tags: callTags(outcome, attempt.attemptNumber),
                provider: attempt.provider,
                call_id: attempt.providerCallId,
                ...(extra.hangupCause !== undefined ? { hangup_cause: extra.hangupCause } : {}),
                ...(extra.error !== undefined ? { error: extra.error } : {}),
                ...(contactNext?._tag === "Retry" ? { retry_scheduled_at: iso(contactNext.at) } : {})
              },
              usage_info: { call_duration_seconds: durationSeconds },
              cost_info: { call_duration_seconds: Math.round(durationSeconds) },
              logs: { telephony_status_callbacks: attempt.events }
            }, iso(at))
          }
          return ok
        }))
        live.delete(attempt.attemptId)
        if (!finished) return
        yield* Ref.update(peak, (p) => ({ ...p, inProgress: p.inProgress - 1 }))
        yield* recordDisposition(attempt.workflowId, outcome)
        yield* recordBreaker(attempt, outcome, extra.error !== undefined ? "call_initiation_failed" : outcome)
        yield* wakeOrganization(attempt.organizationId)
      }).pipe(Effect.withSpan("Dispatcher.finish"))

    /** Normalized events from any provider end up here (in-process or through the callback route). */
    const handleEvent = Effect.fn("Dispatcher.handleEvent")(function*(attemptId: number, event: CallEvent) {
      const attempt = live.get(attemptId) ?? (yield* rebuild(attemptId))
      if (attempt === undefined) return
      if (attempt.providerCallId === null) attempt.providerCallId = event.providerCallId
      if (event.type !== "ended") {
        attempt.events.push({ status: event.type, timestamp: iso(event.at) })
        return
      }
      yield* finish(attempt, event.outcome, event.durationSeconds, event.hangupCause !== undefined ? { hangupCause: event.hangupCause } : {})
    })

    /** The in-memory record of an open attempt placed before a restart (or by another process). */
    const rebuild = (attemptId: number) =>
      Effect.gen(function*() {
        const found = yield* repo.findAttempt(attemptId)
        if (Option.isNone(found) || found.value.run_id === null) return undefined
        return yield* liveFromOpen(found.value)
      })

    const liveFromOpen = (open: OpenAttempt) =>
      Effect.gen(function*() {
        const campaign = open.campaign_id === null ? Option.none<DispatchCampaign>() : yield* repo.loadCampaign(open.campaign_id)
        const run = open.run_id === null ? Option.none() : yield* runs.findById(open.run_id)
        const attempt: LiveAttempt = {
          attemptId: open.id,
          organizationId: open.organization_id,
          campaignId: open.campaign_id,
          contactId: open.contact_id,
          workflowId: Option.match(run, { onNone: () => 0, onSome: (r) => r.workflow_id }),
          runId: open.run_id ?? 0,
          attemptNumber: open.attempt_number,
          retry: Option.getOrUndefined(Option.map(campaign, (c) => c.retry_config)),
          breaker: Option.getOrUndefined(Option.map(campaign, (c) => c.circuit_breaker)),
          provider: open.provider,
          events: [...((Option.getOrUndefined(run)?.logs as any)?.telephony_status_callbacks ?? [])],
          providerCallId: open.provider_call_id
        }
        live.set(open.id, attempt)
        return attempt
      })

    // ---------------------------------------------------------------- placing a call

    const place = (attempt: LiveAttempt, route: OutboundRoute, to: string, from: string | null) =>
      Effect.gen(function*() {
        yield* Ref.update(peak, (p) => {
          const inProgress = p.inProgress + 1
          return { inProgress, peak: Math.max(p.peak, inProgress) }
        })
        const placed = yield* route.provider.placeCall({
          config: route.config,
          to,
          from: from ?? undefined,
          correlationId: String(attempt.attemptId),
          callbackUrl: `${settings.callbackBaseUrl}/api/v1/telephony/callbacks/${route.provider.name}/${attempt.attemptId}`,
          onEvent: (event) => handleEvent(attempt.attemptId, event).pipe(Effect.catchAllCause(Effect.logError))
        }).pipe(Effect.either)
        if (Either.isLeft(placed)) {
          yield* finish(attempt, "failed", 0, { error: placed.left.message })
          return Either.left(placed.left.message)
        }
        if (attempt.providerCallId === null) attempt.providerCallId = placed.right.providerCallId
        yield* repo.setProviderCallId(attempt.attemptId, placed.right.providerCallId)
        return Either.right(placed.right.providerCallId)
      })

    /**
     * What every claimed attempt goes through before the provider sees it: its run is created, the
     * attempt is marked `dialing` (from here on only the provider knows its fate) and tracked in memory.
     */
    const beginAttempt = (input: {
      readonly attemptId: number
      readonly organizationId: number
      readonly campaign: DispatchCampaign | undefined
      readonly contactId: number | null
      readonly workflow: StoredWorkflow
      readonly attemptNumber: number
      readonly route: OutboundRoute
      readonly from: string | null
      readonly name: string
      readonly initialContext: Record<string, unknown>
      readonly at: number
    }) =>
      Effect.gen(function*() {
        const run = yield* runs.insert({
          organization_id: input.organizationId,
          workflow_id: input.workflow.id,
          campaign_id: input.campaign?.id ?? null,
          definition_id: input.workflow.current_definition_id,
          name: input.name,
          mode: input.route.provider.name,
          call_type: "outbound",
          initial_context: input.initialContext,
          gathered_context: null,
          logs: null,
          now: iso(input.at)
        })
        yield* repo.markDialing(input.attemptId, run.id, input.from)
        const attempt: LiveAttempt = {
          attemptId: input.attemptId,
          organizationId: input.organizationId,
          campaignId: input.campaign?.id ?? null,
          contactId: input.contactId,
          workflowId: input.workflow.id,
          runId: run.id,
          attemptNumber: input.attemptNumber,
          retry: input.campaign?.retry_config,
          breaker: input.campaign?.circuit_breaker,
          provider: input.route.provider.name,
          events: [],
          providerCallId: null
        }
        live.set(input.attemptId, attempt)
        return { attempt, run }
      })

    // ---------------------------------------------------------------- campaigns

    const campaignContext = (
      campaign: DispatchCampaign,
      contact: { readonly initialContext: Record<string, unknown>; readonly attemptNumber: number; readonly phoneNumber: string },
      route: OutboundRoute,
      from: string | null
    ) => ({
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

    /** One pass: claim what the limits allow and place those calls. Returns how many were claimed and due. */
    const dialDue = (campaign: DispatchCampaign, route: OutboundRoute, workflow: StoredWorkflow, organizationLimit: number) =>
      Effect.gen(function*() {
        const at = yield* now
        const due = yield* repo.dueContacts(campaign.id, iso(at), settings.claimBatch)
        if (due.length === 0) return { claimed: 0, due: 0 }
        const schedule = (campaign.schedule_config ?? null) as ScheduleConfig | null
        const ready: Array<number> = []
        const deferrals: Array<{ id: number; until: string }> = []
        for (const contact of due) {
          const zone = contact.timezone ?? undefined
          if (isWithinSchedule(schedule, at, zone)) ready.push(contact.id)
          else {
            const opens = nextWindowStart(schedule, at, zone)
            // A schedule that never opens keeps the contact waiting a week at a time (validated schedules always open).
            deferrals.push({ id: contact.id, until: iso(opens ?? at + 7 * 24 * 3600 * 1000) })
          }
        }
        if (deferrals.length > 0) yield* repo.deferContacts(deferrals)
        if (ready.length === 0) return { claimed: 0, due: 0 }
        const claimed = yield* repo.claim({
          campaignId: campaign.id,
          organizationId: campaign.organization_id,
          contactIds: ready,
          campaignLimit: Math.min(campaign.max_concurrency ?? organizationLimit, organizationLimit),
          provider: route.provider.name,
          telephonyConfigurationId: route.configurationId,
          nodeId: settings.nodeId,
          now: iso(at)
        })
        for (const contact of claimed) {
          const from = callerId(route)
          const { attempt } = yield* beginAttempt({
            attemptId: contact.attemptId,
            organizationId: campaign.organization_id,
            campaign,
            contactId: contact.contactId,
            workflow,
            attemptNumber: contact.attemptNumber,
            route,
            from,
            name: `WR-CAMPAIGN-${campaign.id}-${contact.contactId}-${contact.attemptNumber}`,
            initialContext: campaignContext(campaign, contact, route, from),
            at
          })
          yield* FiberSet.run(calls, place(attempt, route, contact.phoneNumber, from))
        }
        return { claimed: claimed.length, due: ready.length }
      })

    const waitForSignal = (queue: Queue.Queue<void>, untilMillis: number | null) =>
      Effect.gen(function*() {
        const at = yield* now
        // The timer is a fallback for events this process cannot see (another process freed an
        // organization slot); calls ending here signal at once.
        const fallback = settings.recheckMillis
        const delay = untilMillis === null ? fallback : Math.max(0, Math.min(untilMillis - at, fallback))
        yield* Effect.raceFirst(Queue.take(queue), Effect.sleep(delay))
        yield* Queue.takeAll(queue)
      })

    const runCampaign = (campaignId: number) =>
      Effect.gen(function*() {
        const first = yield* repo.loadCampaign(campaignId)
        if (Option.isNone(first)) return
        const queue = yield* Queue.sliding<void>(1)
        signals.set(campaignId, { organizationId: first.value.organization_id, queue })
        breakers.delete(campaignId)
        yield* reconcile(campaignId)
        let context:
          | { at: number; configurationId: number | null; route: OutboundRoute; workflow: StoredWorkflow; limit: number }
          | undefined
        while (true) {
          const loaded = yield* repo.loadCampaign(campaignId)
          if (Option.isNone(loaded) || loaded.value.state !== "running") return
          const campaign = loaded.value
          // The route (decrypted credentials, caller ids), the agent and the organization's limit change
          // rarely: re-read them at most once a second instead of on every pass of a busy loop.
          const at = yield* now
          if (
            context === undefined || at - context.at > CONTEXT_TTL_MILLIS ||
            context.configurationId !== campaign.telephony_configuration_id
          ) {
            const route = yield* routing.resolve(campaign.organization_id, campaign.telephony_configuration_id).pipe(Effect.either)
            if (Either.isLeft(route)) {
              yield* repo.setState(
                campaignId,
                ["running"],
                "failed",
                logEntry(at, "error", "telephony_unavailable", `Cannot dial: ${route.left.detail}`)
              )
              return
            }
            const workflow = yield* workflows.find(campaign.organization_id, campaign.workflow_id)
            const organization = yield* organizations.findById(campaign.organization_id)
            if (Option.isNone(workflow) || Option.isNone(organization)) return
            context = {
              at,
              configurationId: campaign.telephony_configuration_id,
              route: route.right,
              workflow: workflow.value,
              limit: organization.value.concurrent_call_limit
            }
          }
          const { claimed, due } = yield* dialDue(campaign, context.route, context.workflow, context.limit)
          if (claimed > 0) {
            yield* Effect.yieldNow()
            continue
          }
          if (due > 0) {
            // At a limit: wait for a call to end.
            yield* waitForSignal(queue, null)
            continue
          }
          const completed = yield* repo.tryComplete(
            campaignId,
            logEntry(at, "info", "campaign_completed", "Every contact reached a final outcome")
          )
          if (completed) return
          const next = yield* repo.nextDue(campaignId)
          yield* waitForSignal(queue, Option.match(next, { onNone: () => null, onSome: (t) => (t === null ? at : Date.parse(t)) }))
        }
      }).pipe(
        Effect.ensuring(Effect.suspend(() => {
          signals.delete(campaignId)
          return repo.releaseCampaign(campaignId, settings.nodeId)
        })),
        Effect.catchAllCause((cause) => Effect.logError(`Campaign ${campaignId} loop failed`, cause)),
        Effect.withSpan("Dispatcher.campaign", { attributes: { campaignId } })
      )

    // ---------------------------------------------------------------- recovery

    /** Settles attempts left open by a dead process (or this one before a restart). */
    const settle = (open: OpenAttempt) =>
      Effect.gen(function*() {
        if (open.state === "claimed" || open.run_id === null) {
          // Never handed to the provider: safe to dial again as if never claimed.
          return yield* repo.releaseClaimed(open.id)
        }
        const attempt = yield* liveFromOpen(open)
        if (open.provider_call_id === null) return yield* finish(attempt, "interrupted", 0, { error: "process stopped while placing the call" })
        const route = yield* routing.resolve(open.organization_id, open.telephony_configuration_id).pipe(Effect.option)
        if (Option.isNone(route)) return yield* finish(attempt, "interrupted", 0, { error: "telephony configuration no longer available" })
        const status = yield* route.value.provider.getCall({ config: route.value.config, providerCallId: open.provider_call_id })
        switch (status._tag) {
          case "Ended":
            return yield* finish(attempt, status.outcome, status.durationSeconds)
          case "InProgress":
            // Still ringing or talking: its end will arrive as an event (callback) like any other.
            yield* Ref.update(peak, (p) => ({ ...p, inProgress: p.inProgress + 1 }))
            return
          case "Unknown":
            return yield* finish(attempt, "interrupted", 0, { error: `call fate unknown: ${status.reason}` })
        }
      }).pipe(Effect.catchAllCause((cause) => Effect.logError(`Could not settle attempt ${open.id}`, cause)))

    const staleBefore = Effect.map(now, (at) => iso(at - settings.leaseSeconds * 1000))

    const reconcile = (campaignId: number | null) =>
      Effect.gen(function*() {
        const orphans = yield* repo.orphanedAttempts({ nodeId: settings.nodeId, staleBefore: yield* staleBefore, campaignId })
        yield* Effect.forEach(orphans, settle, { discard: true })
      })

    // ---------------------------------------------------------------- ownership

    const acquire = Effect.gen(function*() {
      const at = yield* now
      const owned = yield* repo.acquireCampaigns(settings.nodeId, iso(at), iso(at + settings.leaseSeconds * 1000))
      for (const id of owned) {
        yield* FiberMap.run(loops, id, runCampaign(id), { onlyIfMissing: true })
      }
    }).pipe(Effect.withSpan("Dispatcher.acquire"))

    const heartbeat = Effect.gen(function*() {
      const at = yield* now
      const owned = new Set(yield* repo.heartbeat(settings.nodeId, iso(at), iso(at + settings.leaseSeconds * 1000)))
      for (const id of signals.keys()) {
        if (!owned.has(id)) yield* FiberMap.remove(loops, id)
      }
    })

    yield* repo.registerNode(settings.nodeId, iso(yield* now))
    // Single calls left open by a previous process; campaign attempts are settled by their campaign's loop.
    yield* reconcile(null).pipe(Effect.forkScoped)
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(settings.acquireIntervalMillis), acquire)).pipe(
      Effect.catchAllCause(Effect.logError)
    ))
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(settings.leaseSeconds * 1000 / 3), heartbeat)).pipe(
      Effect.catchAllCause(Effect.logError)
    ))

    // ---------------------------------------------------------------- the service

    /** Looks for running campaigns to dial now (after start or resume), instead of at the next tick. */
    const kick = acquire.pipe(Effect.catchAllCause(Effect.logError))

    /** Wakes a campaign's loop (after pause, cancel, or a settings change). */
    const wake = (campaignId: number) =>
      Effect.suspend(() => {
        const signal = signals.get(campaignId)
        return signal ? Queue.offer(signal.queue, undefined) : Effect.void
      })

    const placeSingleCall = Effect.fn("Dispatcher.placeSingleCall")(function*(input: {
      readonly organizationId: number
      readonly workflow: StoredWorkflow
      readonly to: string
      readonly initialContext: Record<string, unknown>
      readonly telephonyConfigurationId: number | null
    }) {
      const route = yield* routing.resolve(input.organizationId, input.telephonyConfigurationId)
      const at = yield* now
      const slot = yield* repo.claimSingle({
        organizationId: input.organizationId,
        to: input.to,
        provider: route.provider.name,
        telephonyConfigurationId: route.configurationId,
        nodeId: settings.nodeId,
        now: iso(at)
      })
      if (Option.isNone(slot)) {
        return yield* new TooManyRequests({
          detail: "Concurrent call limit reached: the organization has as many calls in progress as it allows; retry when one ends"
        })
      }
      const from = callerId(route)
      const { attempt, run } = yield* beginAttempt({
        attemptId: slot.value,
        organizationId: input.organizationId,
        campaign: undefined,
        contactId: null,
        workflow: input.workflow,
        attemptNumber: 1,
        route,
        from,
        name: `WR-API-${Crypto.randomBytes(4).toString("hex").toUpperCase()}`,
        initialContext: {
          ...input.initialContext,
          phone_number: input.to,
          called_number: input.to,
          caller_number: from,
          provider: route.provider.name,
          direction: "outbound",
          telephony_configuration_id: route.configurationId,
          workflow_uuid: input.workflow.workflow_uuid
        },
        at
      })
      const placed = yield* place(attempt, route, input.to, from)
      if (Either.isLeft(placed)) return yield* new BadRequest({ detail: `Failed to initiate call: ${placed.left}` })
      return { status: "initiated", workflow_run_id: run.id, workflow_run_name: run.name }
    })

    return {
      kick,
      wake,
      placeSingleCall,
      handleEvent,
      /** Highest number of calls this process had in progress at once, for benchmarks and tests. */
      peakInProgress: Effect.map(Ref.get(peak), (p) => p.peak),
      inProgress: Effect.map(Ref.get(peak), (p) => p.inProgress)
    } as const
  })
}) {}
