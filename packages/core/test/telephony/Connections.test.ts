import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as Connections from "../../src/telephony/Connections.js"
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"

/** A connection that records when it opens and closes. */
const recorder = () => {
  const log: Array<string> = []
  const connect = (name: string) => Effect.acquireRelease(Effect.sync(() => void log.push(`open ${name}`)), () => Effect.sync(() => void log.push(`close ${name}`)))
  return { log, connect }
}

describe("per-configuration connections", () => {
  it.effect("one connection per configuration version, kept across calls; a new version replaces it; all close with the scope", () =>
    Effect.gen(function*() {
      const { connect, log } = recorder()
      const scope = yield* Scope.make()
      const connections = yield* Scope.extend(Connections.make, scope)
      yield* connections.ensure(1, "v1", connect("1@v1"))
      yield* connections.ensure(1, "v1", connect("1@v1 again"))
      yield* connections.ensure(2, "v1", connect("2@v1"))
      expect(log).toEqual(["open 1@v1", "open 2@v1"])
      yield* connections.ensure(1, "v2", connect("1@v2"))
      expect(log).toEqual(["open 1@v1", "open 2@v1", "close 1@v1", "open 1@v2"])
      yield* Scope.close(scope, Exit.void)
      expect(log.slice(4).sort()).toEqual(["close 1@v2", "close 2@v1"])
    }))

  it.scoped("calls racing for the first connection open it once", () =>
    Effect.gen(function*() {
      const { connect, log } = recorder()
      const connections = yield* Connections.make
      yield* Effect.all(Array.from({ length: 20 }, () => connections.ensure(7, "v", connect("7"))), { concurrency: "unbounded" })
      expect(log).toEqual(["open 7"])
    }))

  it.scoped("a failed open is not kept: the next call tries again", () =>
    Effect.gen(function*() {
      const connections = yield* Connections.make
      let attempts = 0
      const flaky = Effect.suspend(() =>
        ++attempts === 1
          ? Effect.fail(new TelephonyError({ provider: "ari", message: "connection refused", retryable: true }))
          : Effect.void
      )
      expect((yield* Effect.flip(connections.ensure(1, "v", flaky))).message).toBe("connection refused")
      yield* connections.ensure(1, "v", flaky)
      yield* connections.ensure(1, "v", flaky)
      expect(attempts).toBe(2)
    }))
})
