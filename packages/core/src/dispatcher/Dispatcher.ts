/**
 * The dispatcher: dials campaigns and single calls. This service only starts the parts and offers
 * what the rest of the application calls; each part has one job:
 *
 * - `Leases`: which running campaigns this process dials (lease + heartbeat), one `CampaignLoop` each;
 * - `CampaignLoop`: claims due contacts within both limits and the calling window, completes campaigns;
 * - `Attempts`: one call from claim to end (run, provider, events, the final write);
 * - `Recovery`: attempts left open by a dead process, settled with the provider;
 * - `BreakerWindow`, `RunRecorder`, `CallerIds`, `Wakeups`, `LiveAttempts`: their one concern each;
 * - `SingleCalls`: calls started by an API request.
 *
 * All state that matters is in the database (`DispatchRepo`); all time comes from Effect's Clock, so
 * TestClock drives retries, windows and simulated calls.
 */
import type { AttemptId, CampaignId } from "@agentline/api/Ids"
import { Effect, Fiber, Layer, Option } from "effect"
import { CampaignDialer } from "../campaigns/CampaignDialer.js"
import { CallEventSink } from "../telephony/CallEventSink.js"
import type { CallEvent } from "../telephony/TelephonyProvider.js"
import { Attempts } from "./Attempts.js"
import { DispatcherSettings } from "./DispatcherSettings.js"
import { Leases } from "./Leases.js"
import { LiveAttempts } from "./LiveAttempts.js"
import { Recovery } from "./Recovery.js"
import { IncomingCalls } from "./IncomingCalls.js"
import { SingleCalls } from "./SingleCalls.js"
import { Wakeups } from "./Wakeups.js"

export { DispatcherSettings }

export class Dispatcher extends Effect.Service<Dispatcher>()("@agentline/core/Dispatcher", {
  scoped: Effect.gen(function*() {
    const leases = yield* Leases
    const recovery = yield* Recovery
    const attempts = yield* Attempts
    const singleCalls = yield* SingleCalls
    const incomingCalls = yield* IncomingCalls
    const wakeups = yield* Wakeups
    const live = yield* LiveAttempts
    const settings = yield* DispatcherSettings

    /**
     * A graceful stop (SIGTERM): no new calls; calls in progress get `drainMillis` to end and be
     * recorded here; what is left is handed over (claims released, the node retired so that other
     * processes settle its calls at once).
     */
    const stopOnce = Effect.gen(function*() {
      yield* leases.stopAll
      const inProgress = yield* live.size
      yield* Effect.logInfo(`Dispatcher stopping: no new calls; ${inProgress} in progress get up to ${settings.drainMillis} ms to end`)
      // Wall-clock time, not Clock: a stopping process must not wait on a clock that may never move (TestClock).
      const deadline = Effect.async<void>((resume) => {
        const timer = setTimeout(() => resume(Effect.void), settings.drainMillis)
        return Effect.sync(() => clearTimeout(timer))
      })
      // On its own fiber: this finalizer runs in an interrupted fiber (SIGTERM), where an interruptible
      // region would end at once; the race itself must stay able to stop its loser.
      // The node stays alive while it drains: its heartbeat stopped with the background fibers, and
      // another process would otherwise find it stale, take its calls in progress for orphans and
      // record them interrupted while they are still talking here.
      const keepAlive = Effect.forever(Effect.zipRight(
        leases.register.pipe(Effect.catchAllCause(Effect.logError)),
        Effect.sleep(settings.leaseSeconds * 1000 / 3)
      ))
      yield* Effect.flatMap(
        Effect.fork(Effect.interruptible(Effect.race(Effect.raceFirst(live.drained, deadline), keepAlive))),
        Fiber.join
      )
      const left = yield* live.size
      yield* recovery.handOver()
      yield* Effect.logInfo(`Dispatcher stopped: ${inProgress - left} calls ended here, ${left} handed over to other processes`)
    }).pipe(Effect.catchAllCause(Effect.logError))
    // Once: the server drains first, while it still answers HTTP (the calls' callbacks and media), and
    // the finalizer below then finds it done; a caller that comes while it runs waits for it.
    const stopGracefully = yield* Effect.cached(stopOnce)

    // Events of this process's calls heard by another process's connection come back through the database;
    // those of other processes' calls heard here go to `handleEvent` (see `CallEventSink`).
    const sink = yield* Effect.serviceOption(CallEventSink)
    if (Option.isSome(sink)) yield* sink.value.register((attemptId, event, options) => attempts.handleEvent(attemptId, event, options))

    yield* leases.register
    // Added before the background fibers start, so it runs after they are stopped (finalizers run in reverse).
    yield* Effect.addFinalizer(() => stopGracefully)
    yield* Effect.forkScoped(leases.maintain)
    // The first sweep at once: what a previous run of this process (or a dead one) left open.
    yield* Effect.forkScoped(Effect.forever(
      recovery.sweep().pipe(Effect.catchAllCause(Effect.logError), Effect.zipRight(Effect.sleep(settings.sweepIntervalMillis)))
    ))

    return {
      /** Looks for running campaigns to dial now (after start or resume), instead of at the next tick. */
      kick: leases.acquire.pipe(Effect.catchAllCause(Effect.logError)),
      /** Wakes a campaign's loop (after pause, cancel, or a settings change). */
      wake: (campaignId: CampaignId) => wakeups.wakeCampaign(campaignId),
      placeSingleCall: singleCalls.place,
      /** An incoming call, within the organization's limit: its attempt and run, or none (busy). */
      acceptIncomingCall: incomingCalls.accept,
      /** Normalized events from any provider (in-process or through the callback route). */
      handleEvent: (attemptId: AttemptId, event: CallEvent, options?: { readonly durable?: boolean }) =>
        attempts.handleEvent(attemptId, event, options),
      /**
       * The graceful stop, before the dispatcher's own end: no new calls, those in progress get up to
       * `drainMillis` to end, the rest is handed over. The standalone server runs it at SIGTERM while it
       * still serves requests (docs/production.md); idempotent.
       */
      drain: stopGracefully,
      /** Highest number of calls this process had in progress at once, for benchmarks and tests. */
      peakInProgress: live.peak,
      inProgress: live.size
    } as const
  }),
  dependencies: [
    Leases.Default,
    Recovery.Default,
    Attempts.Default,
    SingleCalls.Default,
    IncomingCalls.Default,
    Wakeups.Default,
    LiveAttempts.Default
  ]
}) {
  /** The campaign service's `CampaignDialer`, implemented by this dispatcher. */
  static readonly campaignDialer = Layer.effect(
    CampaignDialer,
    Effect.map(Dispatcher, (dispatcher) => ({
      stateChanged: (campaign) => (campaign.state === "running" ? dispatcher.kick : dispatcher.wake(campaign.id))
    }))
  )
}
