import { AttemptId } from "@agentline/api/Ids"
import { MediaTokens, TOKEN_TTL_MILLIS } from "@agentline/core/media/MediaTokens"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, TestClock } from "effect"
import { Repositories, Testing } from "../src/index.js"

for (const dialect of Testing.dialects) {
  layer(MediaTokens.Default.pipe(Layer.provideMerge(Repositories.layer), Layer.provideMerge(Testing.layerDatabase(dialect))), {
    timeout: "60 seconds"
  })(`media stream tokens [${dialect}]`, (it) => {
    it.effect("a token opens its attempt once, for its provider only, until it expires", () =>
      Effect.gen(function*() {
        const tokens = yield* MediaTokens
        yield* TestClock.setTime(Date.UTC(2026, 0, 1))
        const token = yield* tokens.issue({ attemptId: AttemptId.make(7), provider: "twilio" })
        expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(yield* tokens.redeem({ token, provider: "telnyx" })).toEqual(Option.none())
        expect(yield* tokens.redeem({ token, provider: "twilio" })).toEqual(Option.some(7))
        expect(yield* tokens.redeem({ token, provider: "twilio" })).toEqual(Option.none())
        expect(yield* tokens.redeem({ token: "A".repeat(43), provider: "twilio" })).toEqual(Option.none())
        expect(yield* tokens.redeem({ token: "not a token", provider: "twilio" })).toEqual(Option.none())

        const late = yield* tokens.issue({ attemptId: AttemptId.make(8), provider: "twilio" })
        yield* TestClock.adjust(TOKEN_TTL_MILLIS + 1)
        expect(yield* tokens.redeem({ token: late, provider: "twilio" })).toEqual(Option.none())
      }))

    it.effect("of two connections presenting one token at once, one gets the call", () =>
      Effect.gen(function*() {
        const tokens = yield* MediaTokens
        const token = yield* tokens.issue({ attemptId: AttemptId.make(9), provider: "twilio" })
        const both = yield* Effect.all([tokens.redeem({ token, provider: "twilio" }), tokens.redeem({ token, provider: "twilio" })], {
          concurrency: 2
        })
        expect(both.filter(Option.isSome).length).toBe(1)
      }))
  })
}
