/**
 * Storage writes the dispatcher must not lose to a dropped database connection: retried for a while
 * (every write it retries is guarded by the row's state, so a write that did commit before the
 * connection dropped changes nothing the second time). What still fails is left to the sweeper
 * (`Recovery.sweep`), which settles every attempt whose `reconcile_at` passes.
 */
import { Data, Effect, Schedule } from "effect"

class StorageUnavailable extends Data.TaggedError("StorageUnavailable")<{ readonly defect: unknown }> {}

/** Repositories turn storage failures into defects; this is how one looks (`@effect/sql`'s `SqlError`). */
const isStorageFailure = (defect: unknown): boolean =>
  typeof defect === "object" && defect !== null && (defect as { readonly _tag?: unknown })._tag === "SqlError"

/** Backs off from 50 ms to at most 2 s between tries, for about 20 s in all (Clock time). */
const retrySchedule = Schedule.exponential("50 millis").pipe(
  Schedule.union(Schedule.spaced("2 seconds")),
  Schedule.upTo("20 seconds")
)

export const persistently = <A, E, R>(write: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  write.pipe(
    Effect.catchAllDefect((defect) => (isStorageFailure(defect) ? Effect.fail(new StorageUnavailable({ defect })) : Effect.die(defect))),
    Effect.retry({ schedule: retrySchedule, while: (e) => e instanceof StorageUnavailable }),
    Effect.catchIf((e): e is StorageUnavailable => e instanceof StorageUnavailable, (e) => Effect.die(e.defect))
  ) as Effect.Effect<A, E, R>
