/**
 * `@effect/experimental`'s rate limiter store, in memory, bounded: the library's own memory store keeps
 * every key it ever saw, and the keys here are visitors' addresses, which never stop coming. Above
 * `PRUNE_ABOVE` keys, a call first drops every key whose window is over (a dropped key would start
 * afresh anyway). The counting is the library's (`layerStoreMemory`): per process, on Effect's Clock.
 */
import { RateLimiter } from "@effect/experimental"
import { Duration, Effect, Layer } from "effect"

/** Above this many keys, expired ones are dropped before counting. */
export const PRUNE_ABOVE = 10_000

/** The store, and how many keys it holds (for tests of the bound). */
export const make = () => {
  const fixedCounters = new Map<string, { count: number; expiresAt: number }>()
  const tokenBuckets = new Map<string, { tokens: number; lastRefill: number; fullAt: number }>()
  const prune = (now: number) => {
    if (fixedCounters.size > PRUNE_ABOVE) for (const [key, counter] of fixedCounters) if (counter.expiresAt <= now) fixedCounters.delete(key)
    if (tokenBuckets.size > PRUNE_ABOVE) for (const [key, bucket] of tokenBuckets) if (bucket.fullAt <= now) tokenBuckets.delete(key)
  }
  const store = RateLimiter.RateLimiterStore.of({
    fixedWindow: (options) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const refillRateMillis = Duration.toMillis(options.refillRate)
          const now = clock.unsafeCurrentTimeMillis()
          prune(now)
          let counter = fixedCounters.get(options.key)
          if (counter === undefined || counter.expiresAt <= now) {
            counter = { count: 0, expiresAt: now }
            fixedCounters.set(options.key, counter)
          }
          if (options.limit !== undefined && counter.count + options.tokens > options.limit) {
            return [counter.count + options.tokens, counter.expiresAt - now] as const
          }
          counter.count += options.tokens
          counter.expiresAt += refillRateMillis * options.tokens
          return [counter.count, counter.expiresAt - now] as const
        })
      ),
    tokenBucket: (options) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const refillRateMillis = Duration.toMillis(options.refillRate)
          const now = clock.unsafeCurrentTimeMillis()
          prune(now)
          let bucket = tokenBuckets.get(options.key)
          if (bucket === undefined) {
            bucket = { tokens: options.limit, lastRefill: now, fullAt: now }
            tokenBuckets.set(options.key, bucket)
          } else {
            const refilled = Math.floor((now - bucket.lastRefill) / refillRateMillis)
            if (refilled > 0) {
              bucket.tokens = Math.min(options.limit, bucket.tokens + refilled)
              bucket.lastRefill += refilled * refillRateMillis
            }
          }
          const left = bucket.tokens - options.tokens
          if (options.allowOverflow || left >= 0) bucket.tokens = left
          bucket.fullAt = bucket.lastRefill + (options.limit - bucket.tokens) * refillRateMillis
          return left
        })
      )
  })
  return { store, keys: () => fixedCounters.size + tokenBuckets.size }
}

/** The store, and the limiter over it. */
export const layer: Layer.Layer<RateLimiter.RateLimiter> = RateLimiter.layer.pipe(
  Layer.provide(Layer.sync(RateLimiter.RateLimiterStore, () => make().store))
)
