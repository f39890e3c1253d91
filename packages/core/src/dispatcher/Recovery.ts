/**
 * Attempts nobody is settling any more, settled. An attempt still `claimed` never reached the provider:
 * it is released (its slot comes back, its contact is queued again as if never claimed). One `dialing`
 * is settled by asking the provider; when the provider cannot tell it is recorded `interrupted`, so no
 * contact is ever dialed twice. Three ways in:
 *
 * - `reconcile`: attempts of processes that stopped (retired, or heartbeat stale), when a campaign's
 *   loop starts here (its lease changed hands) and on every sweep;
 * - `recoverOwn`: this process's attempts of a campaign whose loop (re)starts here: a claim its dead
 *   loop left, a call this process lost track of;
 * - `sweep`: periodically, the above for every campaign, plus this process's attempts past their
 *   `reconcile_at` (a final write lost with the database connection, a call that never reported).
 */
import type { CampaignId } from "@agentline/api/Ids"
import { Clock, Effect, Option } from "effect"
import { OutboundRouting } from "../telephony/OutboundRouting.js"
import { iso } from "../Time.js"
import { Attempts } from "./Attempts.js"
import { DispatcherSettings } from "./DispatcherSettings.js"
import { DispatchRepo, type OpenAttempt } from "./DispatchRepo.js"
import { LiveAttempts } from "./LiveAttempts.js"
import { persistently } from "./Persistently.js"

/** How many overdue attempts one sweep looks at (the next sweep takes the rest). */
const SWEEP_BATCH = 200

export class Recovery extends Effect.Service<Recovery>()("@agentline/core/dispatcher/Recovery", {
  effect: Effect.gen(function*() {
    const repo = yield* DispatchRepo
    const routing = yield* OutboundRouting
    const attempts = yield* Attempts
    const live = yield* LiveAttempts
    const settings = yield* DispatcherSettings

    const settle = (open: OpenAttempt) =>
      Effect.gen(function*() {
        if (open.state === "claimed" || open.runId === null) return yield* persistently(repo.releaseClaimed(open.id))
        const attempt = Option.getOrUndefined(yield* live.get(open.id)) ?? (yield* attempts.fromStorage(open))
        if (attempt === undefined) return
        const interrupted = (error: string) => attempts.finish(open.id, { outcome: "interrupted", durationSeconds: 0, error }, attempt)
        if (open.providerCallId === null) return yield* interrupted("the call's placing was cut short; its fate is unknown")
        const route = yield* routing.resolve(open.organizationId, open.telephonyConfigurationId).pipe(Effect.option)
        if (Option.isNone(route)) return yield* interrupted("telephony configuration no longer available")
        const status = yield* route.value.calls.get(open.providerCallId)
        switch (status._tag) {
          case "Ended":
            return yield* attempts.finish(open.id, { outcome: status.outcome, durationSeconds: status.durationSeconds }, attempt)
          case "InProgress": {
            // Still ringing or talking: its end arrives as an event like any other; ask again later.
            if (Option.isNone(yield* live.get(open.id))) yield* live.track(attempt)
            const at = yield* Clock.currentTimeMillis
            return yield* persistently(repo.postpone({ attemptId: open.id, reconcileAt: iso(at + settings.reconcileMarginSeconds * 1000) }))
          }
          case "Unknown":
            return yield* interrupted(`call fate unknown: ${status.reason}`)
        }
      }).pipe(Effect.catchAllCause((cause) => Effect.logError(`Could not settle attempt ${open.id}`, cause)))

    /** Settles the open attempts of stopped processes: of one campaign, or all. */
    const reconcile = Effect.fn("Dispatcher.reconcile")(function*(campaignId?: CampaignId) {
      const at = yield* Clock.currentTimeMillis
      const orphans = yield* repo.orphanedAttempts({
        nodeId: settings.nodeId,
        staleBefore: iso(at - settings.leaseSeconds * 1000),
        ...(campaignId !== undefined ? { campaignId } : {})
      })
      yield* Effect.forEach(orphans, settle, { discard: true })
    })

    /**
     * This process's attempts of a campaign whose loop starts: nothing of the campaign is being
     * placed now, so a claim is left over from a loop that died, and a call not tracked in memory was lost track of.
     */
    const recoverOwn = Effect.fn("Dispatcher.recoverOwn")(function*(campaignId: CampaignId) {
      const own = yield* repo.openAttemptsOf({ nodeId: settings.nodeId, campaignId })
      for (const open of own) {
        if (open.state === "dialing" && Option.isSome(yield* live.get(open.id))) continue
        yield* settle(open)
      }
    })

    /**
     * Calls this process holds in memory whose end another process recorded (a status callback that
     * landed there, the process holding ARI's events WebSocket): forgotten, so they neither count as in
     * progress nor hold a graceful stop. This process's open attempts come in one query; only the rest
     * are looked up one by one.
     */
    const forgetSettledElsewhere = Effect.gen(function*() {
      const ids = yield* live.ids
      if (ids.length === 0) return
      const open = new Set((yield* repo.openAttemptsOf({ nodeId: settings.nodeId })).map((a) => a.id))
      for (const id of ids) {
        if (open.has(id)) continue
        const stored = yield* repo.findAttempt(id)
        if (Option.isSome(stored) && stored.value.state !== "claimed" && stored.value.state !== "dialing") yield* live.take(id)
      }
    })

    /** One pass of the sweeper (see the module comment). */
    const sweep = Effect.fn("Dispatcher.sweep")(function*() {
      yield* forgetSettledElsewhere
      yield* reconcile()
      const at = yield* Clock.currentTimeMillis
      const overdue = yield* repo.overdueAttempts({ nodeId: settings.nodeId, now: iso(at), limit: SWEEP_BATCH })
      yield* Effect.forEach(overdue, settle, { discard: true })
    })

    /**
     * A graceful stop: claims not yet handed to the provider are released, and the node is retired so
     * that other processes settle its calls in progress at once instead of when its heartbeat is stale.
     */
    const handOver = Effect.fn("Dispatcher.handOver")(function*() {
      const own = yield* repo.openAttemptsOf({ nodeId: settings.nodeId })
      yield* Effect.forEach(own.filter((open) => open.state === "claimed"), (open) => persistently(repo.releaseClaimed(open.id)), {
        discard: true
      })
      yield* persistently(repo.retireNode(settings.nodeId))
    })

    return { reconcile, recoverOwn, sweep, handOver } as const
  }),
  dependencies: [Attempts.Default, LiveAttempts.Default]
}) {}
