/**
 * Group commit: small independent writes that arrive while a transaction is committing are written
 * together in the next one, by a function that writes a whole batch in a few statements. Each caller
 * still waits until its own write has committed (so nothing it reports is lost to a crash), but a busy
 * dispatcher pays one commit and a few round trips per batch of call ends instead of several per call.
 *
 * `writeAll` gets the batch in arrival order and returns one result per item, in the same order; it
 * fails only with defects. When a batch fails on storage (the database unreachable), every caller gets
 * the failure at once (they retry with their own backoff); any other failure is tried again item by
 * item, so one bad write fails alone.
 */
import { Deferred, Effect, Exit, Fiber, Option, Queue, type Scope } from "effect"
import * as Storage from "./Storage.js"
import { Transactor } from "./Transactor.js"

/** At most this many writes in one transaction (bounds how long it holds the database's write lock). */
export const MAX_GROUP = 256

interface Pending<I, O> {
  readonly item: I
  readonly done: Deferred.Deferred<O>
}

export interface GroupCommit<I, O> {
  /** Commits `item` with the items queued beside it; completes with its result once committed. */
  readonly write: (item: I) => Effect.Effect<O>
}

export interface Options {
  /**
   * Run by the writer between the first write of a batch and taking the others: a wait that lets writes
   * already on their way join the batch (`nextTurn`: the answers the event loop has in hand). Without
   * it a batch is what queued while the previous one committed, which is nothing when a commit is fast
   * (SQLite) and the writes come one by one.
   */
  readonly gather?: Effect.Effect<void>
}

/**
 * Waits for the event loop's next turn: the I/O callbacks it has ready (HTTP answers, say) run first.
 * Not a timer: it is the same under Effect's `TestClock`.
 */
export const nextTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * A group-committing writer while the scope lasts. Closing the scope commits what was queued; a write
 * that comes after (a call ending during shutdown) is committed on its own.
 */
export const make = <I, O>(
  writeAll: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>>,
  options: Options = {}
): Effect.Effect<GroupCommit<I, O>, never, Transactor | Scope.Scope> =>
  Effect.gen(function*() {
    const tx = yield* Transactor
    // `undefined` tells the writer to stop once it has committed everything queued before it.
    const queue = yield* Queue.unbounded<Pending<I, O> | undefined>()
    let closed = false

    const commit = (batch: ReadonlyArray<Pending<I, O>>): Effect.Effect<void> =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(tx.withTransaction(writeAll(batch.map((p) => p.item)))).pipe(
          // One trace per batch, its statements under it (the writer's fiber has no span of its own).
          Effect.withSpan("GroupCommit.batch", { root: true, attributes: { "agentline.batch_size": batch.length } })
        )
        if (Exit.isSuccess(exit)) {
          yield* Effect.forEach(batch, (p, i) => Deferred.succeed(p.done, exit.value[i]!), { discard: true })
        } else if (batch.length === 1 || Option.isSome(Storage.storageErrorIn(exit.cause))) {
          yield* Effect.forEach(batch, (p) => Deferred.failCause(p.done, exit.cause), { discard: true })
        } else {
          yield* Effect.forEach(batch, (p) => commit([p]), { discard: true })
        }
      })

    // Whatever goes wrong, every caller of the batch hears of it: the writer itself must not stop.
    const commitOrFail = (batch: ReadonlyArray<Pending<I, O>>) =>
      commit(batch).pipe(Effect.catchAllCause((cause) => Effect.forEach(batch, (p) => Deferred.failCause(p.done, cause), { discard: true })))

    // Never interrupted (an item it took would be lost): it stops at the marker the finalizer queues.
    const writer = Effect.gen(function*() {
      while (true) {
        const first = yield* Queue.take(queue)
        if (first !== undefined && options.gather !== undefined) yield* options.gather
        const taken = [first, ...(yield* Queue.takeUpTo(queue, MAX_GROUP - 1))]
        const stop = taken.includes(undefined)
        const batch = taken.filter((p): p is Pending<I, O> => p !== undefined)
        if (batch.length > 0) yield* commitOrFail(batch)
        if (stop) {
          const rest = (yield* Queue.takeAll(queue)).pipe((all) => [...all].filter((p): p is Pending<I, O> => p !== undefined))
          if (rest.length > 0) yield* commitOrFail(rest)
          return
        }
      }
    })
    const fiber = yield* Effect.forkScoped(Effect.uninterruptible(writer))
    // Runs before the fork's own finalizer (finalizers run in reverse order): the writer ends by itself.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        Queue.unsafeOffer(queue, undefined)
        return Fiber.await(fiber)
      })
    )

    return {
      write: (item: I) =>
        Effect.suspend(() => {
          if (closed) return Effect.map(tx.withTransaction(writeAll([item])), (results) => results[0]!)
          const done = Deferred.unsafeMake<O>(fiber.id())
          // Checked and queued in one step: nothing is queued after the writer's stop marker.
          Queue.unsafeOffer(queue, { item, done })
          return Deferred.await(done)
        })
    }
  })
