import { RateLimiter } from "@effect/experimental"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Layer, TestClock } from "effect"
import * as RateLimiterMemory from "../src/RateLimiterMemory.js"

const limited = () => {
  const memory = RateLimiterMemory.make()
  const layer = RateLimiter.layer.pipe(Layer.provide(Layer.succeed(RateLimiter.RateLimiterStore, memory.store)))
  return { memory, layer }
}

const consume = (key: string) =>
  Effect.flatMap(RateLimiter.RateLimiter, (limiter) => Effect.either(limiter.consume({ key, limit: 3, window: Duration.minutes(1) })))

describe("the bounded memory store", () => {
  it.effect("counts per key like the library's store: a burst of the limit, then refused until the window passes", () => {
    const { layer } = limited()
    return Effect.gen(function*() {
      for (let i = 0; i < 3; i++) expect(Either.isRight(yield* consume("a"))).toBe(true)
      const refused = yield* consume("a")
      expect(Either.isLeft(refused)).toBe(true)
      if (Either.isLeft(refused) && refused.left.reason === "Exceeded") expect(Duration.toMillis(refused.left.retryAfter)).toBeGreaterThan(0)
      expect(Either.isRight(yield* consume("b"))).toBe(true)
      yield* TestClock.adjust(Duration.minutes(1))
      expect(Either.isRight(yield* consume("a"))).toBe(true)
    }).pipe(Effect.provide(layer))
  })

  it.effect("drops keys whose window is over once it holds many", () => {
    const { layer, memory } = limited()
    return Effect.gen(function*() {
      for (let i = 0; i <= RateLimiterMemory.PRUNE_ABOVE; i++) yield* consume(`visitor-${i}`)
      expect(memory.keys()).toBe(RateLimiterMemory.PRUNE_ABOVE + 1)
      yield* TestClock.adjust(Duration.minutes(2))
      yield* consume("late")
      expect(memory.keys()).toBe(1)
    }).pipe(Effect.provide(layer))
  })
})
