/** The adapter against the fake Asterisk: the events WebSocket's credentials and reconnection, calls' events. */
import type { CallEvent } from "@agentline/core/telephony/TelephonyProvider"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema, Scope } from "effect"
import { Ari } from "../src/index.js"
import * as FakeAri from "../src/testing/FakeAri.js"

const user = { name: "agentline", password: "ari-password-0123" }

const withFake = <A, E>(body: (fake: FakeAri.FakeAri) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => FakeAri.start({ user: user.name, password: user.password, secondMillis: 20 })),
    body,
    (fake) => Effect.promise(() => fake.close())
  )

const configOf = (fake: FakeAri.FakeAri, password = user.password) =>
  Schema.decodeUnknownSync(Ari.AriConfig)({ ari_endpoint: fake.url, app_name: user.name, app_password: password })

const until = (check: () => boolean, what: string) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (!check()) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
  })

describe("ari adapter against the fake Asterisk", () => {
  it.live("a wrong ARI password fails the connection, non-retryable, without the password in the message", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        const adapter = Ari.make({ apiUrl: fake.url })
        const failed = yield* Effect.flip(Effect.scoped(adapter.connect!(configOf(fake, "wrong-password-xyz"))))
        expect(failed.retryable).toBe(false)
        expect(failed.message).toContain("check the ARI user and password")
        expect(failed.message).not.toContain("wrong-password-xyz")
      })
    ))

  it.live("a call reports ringing, answered and ended over the events WebSocket, which reconnects when lost", () =>
    withFake((fake) =>
      Effect.scoped(Effect.gen(function*() {
        const adapter = Ari.make({ apiUrl: fake.url })
        const config = configOf(fake)
        yield* adapter.connect!(config)
        expect(fake.eventSockets(user.name)).toBe(1)
        // Asterisk restarts: the connection comes back by itself.
        fake.dropEventSockets()
        yield* until(() => fake.eventSockets(user.name) === 0, "the socket to drop")
        yield* until(() => fake.eventSockets(user.name) === 1, "the reconnection")

        fake.behave("+14155550100", { answer: "human", talkSeconds: 3 })
        const events: Array<CallEvent> = []
        const placed = yield* adapter.calls!.place({
          config,
          to: "+14155550100",
          from: "+14155550199",
          attemptId: 7,
          callbackUrl: "http://127.0.0.1/unused",
          answerUrl: "http://127.0.0.1/unused",
          whenAnswered: { _tag: "KeepOpen" },
          onEvent: (event) => Effect.sync(() => void events.push(event))
        })
        expect(fake.channel(placed.providerCallId)?.args).toEqual(["attempt_id=7"])
        expect(fake.channel(placed.providerCallId)?.endpoint).toBe("PJSIP/+14155550100")
        expect(yield* Effect.promise(() => fake.channel(placed.providerCallId)!.ended)).toBe("completed")
        yield* until(() => events.some((e) => e.type === "ended"), "the end")
        expect(events.map((e) => e.type)).toEqual(["initiated", "ringing", "answered", "ended"])
        const ended = events.at(-1) as Extract<CallEvent, { type: "ended" }>
        expect(ended).toMatchObject({ outcome: "completed", hangupCause: "16 Normal Clearing" })
        // Three seconds of talk on the fake's clock (10 ms a second: timers may run a little late).
        expect(ended.durationSeconds).toBeGreaterThanOrEqual(3)
        expect(ended.durationSeconds).toBeLessThanOrEqual(5)
        expect(yield* adapter.calls!.get({ config, providerCallId: placed.providerCallId })).toEqual({ _tag: "Ended", outcome: "completed", durationSeconds: ended.durationSeconds })
      }))
    ))

  it.live("configurations of one box and ARI user share one events WebSocket (Asterisk gives the application to the last one)", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        const adapter = Ari.make({ apiUrl: fake.url })
        const first = yield* Scope.make()
        const second = yield* Scope.make()
        yield* Scope.extend(adapter.connect!(configOf(fake)), first)
        yield* Scope.extend(adapter.connect!({ ...configOf(fake), dial_string: "PJSIP/{number}@trunk" }), second)
        expect(fake.eventSockets(user.name)).toBe(1)
        yield* Scope.close(first, Exit.void)
        expect(fake.eventSockets(user.name)).toBe(1)
        yield* Scope.close(second, Exit.void)
        yield* until(() => fake.eventSockets(user.name) === 0, "the socket to close")
      })
    ))

  it.live("a dial-string template reaches FreePBX routes; a busy callee is busy; hanging up a call that is gone succeeds", () =>
    withFake((fake) =>
      Effect.scoped(Effect.gen(function*() {
        const adapter = Ari.make({ apiUrl: fake.url })
        const config = { ...configOf(fake), dial_string: "Local/{digits}@from-internal" }
        yield* adapter.connect!(config)
        fake.behave("14155550111", { answer: "busy" })
        const events: Array<CallEvent> = []
        const placed = yield* adapter.calls!.place({
          config,
          to: "+14155550111",
          from: undefined,
          attemptId: 8,
          callbackUrl: "",
          answerUrl: "",
          whenAnswered: { _tag: "KeepOpen" },
          onEvent: (event) => Effect.sync(() => void events.push(event))
        })
        expect(fake.channel(placed.providerCallId)?.endpoint).toBe("Local/14155550111@from-internal")
        yield* until(() => events.some((e) => e.type === "ended"), "the end")
        expect(events.at(-1)).toMatchObject({ outcome: "busy", durationSeconds: 0, hangupCause: "17 User busy" })
        yield* adapter.calls!.hangUp({ config, providerCallId: placed.providerCallId })
        // A dial string Asterisk cannot make a channel for: refused at once, for good.
        fake.behave("14155550113", { answer: "invalid" })
        const refused = yield* Effect.flip(adapter.calls!.place({
          config,
          to: "+14155550113",
          from: undefined,
          attemptId: 10,
          callbackUrl: "",
          answerUrl: "",
          whenAnswered: { _tag: "KeepOpen" },
          onEvent: () => Effect.void
        }))
        expect(refused.retryable).toBe(false)
        expect(refused.message).toContain("+14155550113")
        expect(refused.message).toContain("Local/14155550113@from-internal")
        // A request tried again for the same attempt (its first try got through) does not dial twice.
        // Ringing for long (scaled) minutes: the hang-up below comes before any answer, however loaded the machine.
        fake.behave("14155550112", { answer: "human", ringSeconds: 6000, talkSeconds: 100 })
        const input = {
          config,
          to: "+14155550112",
          from: undefined,
          attemptId: 9,
          callbackUrl: "",
          answerUrl: "",
          whenAnswered: { _tag: "KeepOpen" },
          onEvent: () => Effect.void
        } as const
        const first = yield* adapter.calls!.place(input)
        const again = yield* adapter.calls!.place(input)
        expect(again.providerCallId).toBe(first.providerCallId)
        expect(fake.channelsTo("14155550112")).toEqual([first.providerCallId])
        yield* adapter.calls!.hangUp({ config, providerCallId: first.providerCallId })
        expect(yield* Effect.promise(() => fake.channel(first.providerCallId)!.ended)).toBe("canceled")
        expect((yield* adapter.calls!.get({ config, providerCallId: "never-placed" }))._tag).toBe("Unknown")
      }))
    ))
})
