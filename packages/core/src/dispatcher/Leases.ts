/**
 * Ownership of running campaigns across processes: each is dialed by the one process holding its
 * lease, renewed by a heartbeat. A process takes running campaigns nobody owns (or whose owner's lease
 * ran out) and runs one `CampaignLoop` per campaign; a loop whose lease was lost is stopped.
 */
import type { CampaignId } from "@agentline/api/Ids"
import { Clock, Effect, FiberMap } from "effect"
import { iso } from "../Time.js"
import { CampaignLoop } from "./CampaignLoop.js"
import { DispatcherSettings } from "./DispatcherSettings.js"
import { DispatchRepo } from "./DispatchRepo.js"

export class Leases extends Effect.Service<Leases>()("@agentline/core/dispatcher/Leases", {
  scoped: Effect.gen(function*() {
    const repo = yield* DispatchRepo
    const campaignLoop = yield* CampaignLoop
    const settings = yield* DispatcherSettings
    const loops = yield* FiberMap.make<CampaignId>()
    // Set by `stopAll`: a process that is stopping takes no campaign any more (it may still serve requests meanwhile).
    let stopping = false

    const lease = Effect.map(Clock.currentTimeMillis, (at) => ({
      nodeId: settings.nodeId,
      now: iso(at),
      leaseUntil: iso(at + settings.leaseSeconds * 1000)
    }))

    /** Takes the running campaigns nobody dials and starts their loops. */
    const acquire = Effect.gen(function*() {
      if (stopping) return
      const owned = yield* repo.acquireCampaigns(yield* lease)
      for (const campaignId of owned) {
        // Stopped meanwhile: the leases taken are given back with the node's retirement.
        if (stopping) return
        yield* FiberMap.run(loops, campaignId, campaignLoop.run(campaignId), { onlyIfMissing: true })
      }
    }).pipe(Effect.withSpan("Dispatcher.acquire"))

    /** Renews this process's leases and stops the loops of campaigns it no longer owns. */
    const heartbeat = Effect.gen(function*() {
      const owned = new Set(yield* repo.heartbeat(yield* lease))
      const running = yield* Effect.sync(() => [...loops].map(([campaignId]) => campaignId))
      for (const campaignId of running) {
        if (!owned.has(campaignId)) yield* FiberMap.remove(loops, campaignId)
      }
    })

    /** Records this process as a dispatcher node (its heartbeat tells others it is alive). */
    const register = Effect.flatMap(Clock.currentTimeMillis, (at) => repo.registerNode({ nodeId: settings.nodeId, now: iso(at) }))

    /** Runs forever: acquires and heartbeats on their intervals. */
    const maintain = Effect.gen(function*() {
      // A failed round (the database unreachable for a moment) is logged and the next one runs as usual.
      const every = (millis: number, effect: Effect.Effect<void>) =>
        Effect.forever(Effect.zipRight(Effect.sleep(millis), effect.pipe(Effect.catchAllCause(Effect.logError))))
      yield* Effect.all([
        every(settings.acquireIntervalMillis, acquire),
        every(settings.leaseSeconds * 1000 / 3, heartbeat)
      ], { concurrency: "unbounded", discard: true })
    })

    /** Stops every loop (each gives its lease back as it ends): a graceful stop. */
    const stopAll = Effect.suspend(() => {
      stopping = true
      return FiberMap.clear(loops)
    })

    return { register, acquire, heartbeat, maintain, stopAll } as const
  }),
  dependencies: [CampaignLoop.Default]
}) {}
