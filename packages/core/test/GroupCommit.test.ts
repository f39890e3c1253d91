import { expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Ref, Scope } from "effect"
import * as GroupCommit from "../src/GroupCommit.js"
import { StorageError } from "../src/Storage.js"
import { Transactor } from "../src/Transactor.js"

/** Transactions that only count themselves: what is under test is the batching, not storage. */
const counting = (count: Ref.Ref<number>) =>
  Layer.succeed(Transactor, Transactor.of({ withTransaction: (effect) => Effect.zipRight(Ref.update(count, (n) => n + 1), effect) }))

/**
 * Writes `first` (whose batch waits for `gate` in the writer), queues `rest` behind it, then opens the
 * gate: `rest` arrives while a batch commits. The outcome of each of `rest`, in order.
 */
const behindABatch = <I, O>(group: GroupCommit.GroupCommit<I, O>, gate: Deferred.Deferred<void>, first: I, rest: ReadonlyArray<I>) =>
  Effect.gen(function*() {
    const held = yield* Effect.fork(group.write(first))
    yield* Effect.yieldNow()
    const fibers = yield* Effect.forEach(rest, (item) => Effect.fork(Effect.exit(group.write(item))))
    yield* Effect.yieldNow()
    yield* Deferred.succeed(gate, undefined)
    yield* Fiber.join(held)
    return yield* Effect.forEach(fibers, Fiber.join)
  })

it.effect("writes arriving while a batch commits are committed together in the next, each caller getting its own result", () =>
  Effect.gen(function*() {
    const transactions = yield* Ref.make(0)
    const batches: Array<ReadonlyArray<number>> = []
    const gate = yield* Deferred.make<void>()
    const group = yield* GroupCommit.make((items: ReadonlyArray<number>) =>
      Effect.gen(function*() {
        batches.push(items)
        // The first batch holds the writer until the others have queued.
        if (items.includes(0)) yield* Deferred.await(gate)
        return items.map((n) => n * 10)
      })
    ).pipe(Effect.provide(counting(transactions)))
    expect(yield* behindABatch(group, gate, 0, [1, 2, 3, 4, 5])).toEqual([10, 20, 30, 40, 50].map(Exit.succeed))
    expect(batches).toEqual([[0], [1, 2, 3, 4, 5]])
    expect(yield* Ref.get(transactions)).toBe(2)
  }).pipe(Effect.scoped))

it.effect("a batch that fails is written again item by item: only the bad write fails", () =>
  Effect.gen(function*() {
    const transactions = yield* Ref.make(0)
    const gate = yield* Deferred.make<void>()
    const group = yield* GroupCommit.make((items: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        if (items.includes("hold")) yield* Deferred.await(gate)
        if (items.includes("bad")) return yield* Effect.dieMessage("refused")
        return items.map((s) => s.toUpperCase())
      })
    ).pipe(Effect.provide(counting(transactions)))
    const [a, bad, b] = yield* behindABatch(group, gate, "hold", ["a", "bad", "b"])
    expect(a).toEqual(Exit.succeed("A"))
    expect(Exit.isFailure(bad!)).toBe(true)
    expect(b).toEqual(Exit.succeed("B"))
    // hold, the failed batch of three, then each of the three alone.
    expect(yield* Ref.get(transactions)).toBe(5)
  }).pipe(Effect.scoped))

it.effect("writes still queued when the scope closes are committed, not dropped", () =>
  Effect.gen(function*() {
    const transactions = yield* Ref.make(0)
    const written: Array<number> = []
    const scope = yield* Scope.make()
    const gate = yield* Deferred.make<void>()
    const group = yield* GroupCommit.make((items: ReadonlyArray<number>) =>
      Effect.gen(function*() {
        if (items.includes(0)) yield* Deferred.await(gate)
        written.push(...items)
        return items
      })
    ).pipe(Effect.provide(counting(transactions)), Scope.extend(scope))
    const first = yield* Effect.fork(group.write(0))
    yield* Effect.yieldNow()
    const queued = yield* Effect.forEach([1, 2], (n) => Effect.fork(group.write(n)))
    yield* Effect.yieldNow()
    // Closing waits for the batch in flight (uninterruptible), then writes what was left queued.
    const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
    yield* Effect.yieldNow()
    yield* Deferred.succeed(gate, undefined)
    yield* Fiber.join(closing)
    expect(yield* Fiber.join(first)).toBe(0)
    expect(yield* Effect.forEach(queued, Fiber.join)).toEqual([1, 2])
    expect(written.sort()).toEqual([0, 1, 2])
  }))

it.effect("a batch that fails on storage fails every write at once (each caller retries with its own backoff)", () =>
  Effect.gen(function*() {
    const transactions = yield* Ref.make(0)
    const gate = yield* Deferred.make<void>()
    const group = yield* GroupCommit.make((items: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        if (items.includes("hold")) yield* Deferred.await(gate)
        if (items.includes("down")) return yield* Effect.die(new StorageError({ cause: new Error("connection refused") }))
        return items
      })
    ).pipe(Effect.provide(counting(transactions)))
    const exits = yield* behindABatch(group, gate, "hold", ["a", "down", "b"])
    expect(exits.every(Exit.isFailure)).toBe(true)
    // hold, then the failed batch once: no transaction per item while the database is down.
    expect(yield* Ref.get(transactions)).toBe(2)
  }).pipe(Effect.scoped))

it.effect("a write queued just before the scope closes, and one after, are both committed", () =>
  Effect.gen(function*() {
    const transactions = yield* Ref.make(0)
    const written: Array<number> = []
    const scope = yield* Scope.make()
    const group = yield* GroupCommit.make((items: ReadonlyArray<number>) =>
      Effect.sync(() => {
        written.push(...items)
        return items
      })
    ).pipe(Effect.provide(counting(transactions)), Scope.extend(scope))
    const before = yield* Effect.fork(group.write(1))
    yield* Effect.yieldNow()
    yield* Scope.close(scope, Exit.void)
    expect(yield* Fiber.join(before)).toBe(1)
    expect(yield* group.write(2)).toBe(2)
    expect(written).toEqual([1, 2])
  }))

/**
 * Writes made from separate callbacks of one event-loop turn (as the answers of a batch of HTTP
 * requests are read): `write(0)` from the first, 1–4 from the next ones. The batches the writer made.
 */
const oneTurnOfWrites = (gather: GroupCommit.Options) =>
  Effect.gen(function*() {
    const transactions = yield* Ref.make(0)
    const batches: Array<ReadonlyArray<number>> = []
    const group = yield* GroupCommit.make((items: ReadonlyArray<number>) =>
      Effect.sync(() => {
        batches.push(items)
        return items
      }), gather).pipe(Effect.provide(counting(transactions)))
    const written = yield* Effect.async<ReadonlyArray<number>>((resume) => {
      const results: Array<number> = []
      for (let n = 0; n < 5; n++) {
        setImmediate(() =>
          Effect.runFork(group.write(n)).addObserver((exit) => {
            if (exit._tag === "Success") results.push(exit.value)
            if (results.length === 5) resume(Effect.succeed(results))
          })
        )
      }
    })
    expect([...written].sort()).toEqual([0, 1, 2, 3, 4])
    return batches
  }).pipe(Effect.scoped)

it.effect("with `gather: nextTurn` the writes of one event-loop turn are committed together; without, the first goes alone", () =>
  Effect.gen(function*() {
    expect(yield* oneTurnOfWrites({ gather: GroupCommit.nextTurn })).toEqual([[0, 1, 2, 3, 4]])
    const alone = yield* oneTurnOfWrites({})
    expect(alone[0]).toEqual([0])
    expect(alone.length).toBeGreaterThan(1)
  }))
