/**
 * The connection lease (`ConnectionLeasesRepo`): one holder at a time; the holder renews; another node
 * takes it only once it ran out or was given up. On both dialects (the upsert's `WHERE` is the point).
 */
import { ConnectionLeasesRepo } from "@agentline/core/telephony/ConnectionLeasesRepo"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Repositories, Testing } from "../src/index.js"

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, seconds)).toISOString()

for (const dialect of Testing.dialects) {
  layer(Repositories.layer.pipe(Layer.provideMerge(Testing.layerDatabase(dialect))), { timeout: "60 seconds" })(`connection leases [${dialect}]`, (it) => {
    it.effect("one holder; renewals keep it; another node takes it once it ran out or was released", () =>
      Effect.gen(function*() {
        const leases = yield* ConnectionLeasesRepo
        const take = (node: string, now: number) => leases.acquire({ key: "telephony-connection:1", node, now: at(now), expiresAt: at(now + 15) })
        expect(yield* take("a", 0)).toBe(true)
        expect(yield* take("b", 1)).toBe(false)
        // a renews at 10 s (until 25 s): b still cannot take it at 20 s.
        expect(yield* take("a", 10)).toBe(true)
        expect(yield* take("b", 20)).toBe(false)
        // a stops renewing: past 25 s it is b's, and a is the one refused.
        expect(yield* take("b", 26)).toBe(true)
        expect(yield* take("a", 27)).toBe(false)
        // Releasing by a node that does not hold it changes nothing; the holder's release frees it at once.
        yield* leases.release({ key: "telephony-connection:1", node: "a" })
        expect(yield* take("a", 28)).toBe(false)
        yield* leases.release({ key: "telephony-connection:1", node: "b" })
        expect(yield* take("a", 29)).toBe(true)
        // Leases are per key.
        expect(yield* leases.acquire({ key: "telephony-connection:2", node: "b", now: at(29), expiresAt: at(44) })).toBe(true)
      }))
  })
}
