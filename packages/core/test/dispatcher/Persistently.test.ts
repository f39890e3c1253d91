import { expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Ref, TestClock } from "effect"
import { persistently } from "../../src/dispatcher/Persistently.js"
import { StorageError } from "../../src/Storage.js"

const storageDown = new StorageError({ cause: new Error("connection terminated") })

it.effect("a write failing on storage is retried until it commits", () =>
  Effect.gen(function*() {
    const tries = yield* Ref.make(0)
    const write = Effect.flatMap(Ref.updateAndGet(tries, (n) => n + 1), (n) => (n < 4 ? Effect.die(storageDown) : Effect.succeed(n)))
    const fiber = yield* Effect.fork(persistently(write))
    yield* TestClock.adjust("5 seconds")
    expect(yield* Fiber.join(fiber)).toBe(4)
  }))

it.effect("any other defect, and a failure of the write's own, is not retried", () =>
  Effect.gen(function*() {
    const tries = yield* Ref.make(0)
    const bug = yield* Effect.exit(persistently(Effect.zipRight(Ref.update(tries, (n) => n + 1), Effect.die(new Error("a bug")))))
    expect(Exit.isFailure(bug)).toBe(true)
    const refused = yield* Effect.exit(persistently(Effect.zipRight(Ref.update(tries, (n) => n + 1), Effect.fail("refused" as const))))
    expect(refused).toEqual(Exit.fail("refused"))
    expect(yield* Ref.get(tries)).toBe(2)
  }))

it.effect("storage still failing after about 20 seconds: the storage defect is given back", () =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(Effect.exit(persistently(Effect.die(storageDown))))
    yield* TestClock.adjust("60 seconds")
    const exit = yield* Fiber.join(fiber)
    expect(exit).toEqual(Exit.die(storageDown))
  }))
