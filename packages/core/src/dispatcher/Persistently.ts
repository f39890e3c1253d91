/**
 * Storage writes the dispatcher must not lose to a dropped database connection: retried for a while
 * (every write it retries is guarded by the row's state, so a write that did commit before the
 * connection dropped changes nothing the second time). What still fails is left to the sweeper
 * (`Recovery.sweep`), which settles every attempt whose `reconcile_at` passes.
 */
import { Effect, Schedule } from "effect"
import * as Storage from "../Storage.js"

/** Backs off from 50 ms to at most 2 s between tries, for about 20 s in all (Clock time). */
const retrySchedule = Schedule.exponential("50 millis").pipe(
  Schedule.union(Schedule.spaced("2 seconds")),
  Schedule.upTo("20 seconds")
)

export const persistently = <A, E, R>(write: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Storage.failures(write).pipe(
    Effect.retry({ schedule: retrySchedule, while: Storage.isStorageError }),
    // Still failing after the retries: a defect again, as the repositories gave it.
    Effect.catchIf(Storage.isStorageError, Effect.die)
  )
