/**
 * Group commit: small independent writes that arrive while a transaction is committing are written
 * together in the next one, by a function that writes a whole batch in a few statements. Each caller
 * still waits until its own write has committed (so nothing it reports is lost to a crash), but a busy
 * dispatcher pays one commit and a few round trips per batch of call ends instead of several per call.
 *
 * `writeAll` gets the batch in arrival order and returns one result per item, in the same order; it
 * fails only with defects. When a batch fails, each of its items is tried again in a batch of its own,
 * so one bad write fails alone.
 */
import { Deferred, Effect, Exit, Queue, type Scope } from "effect"
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

/** A group-committing writer while the scope lasts; items still queued when it closes are written then. */
export const make = <I, O>(
  writeAll: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>>
): Effect.Effect<GroupCommit<I, O>, never, Transactor | Scope.Scope> =>
  Effect.gen(function*() {
    const tx = yield* Transactor
    const queue = yield* Queue.unbounded<Pending<I, O>>()

    const commit = (batch: ReadonlyArray<Pending<I, O>>): Effect.Effect<void> =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(tx.withTransaction(writeAll(batch.map((p) => p.item))))
        if (Exit.isSuccess(exit)) {
          yield* Effect.forEach(batch, (p, i) => Deferred.succeed(p.done, exit.value[i]!), { discard: true })
        } else if (batch.length === 1) {
          yield* Deferred.failCause(batch[0]!.done, exit.cause)
        } else {
          yield* Effect.forEach(batch, (p) => commit([p]), { discard: true })
        }
      })

    // A batch is taken and committed as one step: interrupting the writer (shutdown) waits for it.
    const writer = Queue.take(queue).pipe(
      Effect.flatMap((first) =>
        Effect.uninterruptible(Effect.flatMap(Queue.takeUpTo(queue, MAX_GROUP - 1), (rest) => commit([first, ...rest])))
      ),
      Effect.forever
    )
    // Finalizers run in reverse order: this one after the writer's interruption, for what it left queued.
    yield* Effect.addFinalizer(() => Effect.flatMap(Queue.takeAll(queue), (rest) => Effect.forEach(rest, (p) => commit([p]), { discard: true })))
    yield* Effect.forkScoped(Effect.interruptible(writer))

    return {
      write: (item: I) =>
        Effect.flatMap(Deferred.make<O>(), (done) => Effect.zipRight(Queue.offer(queue, { item, done }), Deferred.await(done)))
    }
  })
