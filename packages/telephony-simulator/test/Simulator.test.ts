import type { CallEvent } from "@agentline/telephony-kit/TelephonyProvider"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema, TestClock } from "effect"
import { Simulator } from "../src/index.js"

const config = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Simulator.SimulatorConfig)(input)

const dial = (provider: Effect.Effect.Success<ReturnType<typeof Simulator.make>>, settings: Record<string, unknown>, to: string) =>
  Effect.gen(function*() {
    const events: Array<CallEvent> = []
    const placed = yield* provider.calls.place({
      config: config(settings),
      to,
      from: undefined,
      attemptId: 1,
      whenAnswered: { _tag: "KeepOpen" },
      callbackUrl: "http://127.0.0.1/cb",
      answerUrl: "http://127.0.0.1/answer",
      onEvent: (e) => Effect.sync(() => void events.push(e))
    })
    return { events, id: placed.providerCallId }
  })

const kinds = (events: ReadonlyArray<CallEvent>) => events.map((e) => (e.type === "ended" ? `ended:${e.outcome}:${e.durationSeconds}` : e.type))

describe("simulator", () => {
  it.scoped("answered calls ring, talk and end on the clock", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const { events, id } = yield* dial(sim, { ring_seconds: 2, talk_seconds: 5 }, "+14155550100")
      yield* TestClock.adjust(0)
      expect(kinds(events)).toEqual(["initiated", "ringing"])
      yield* TestClock.adjust(2000)
      expect(kinds(events)).toEqual(["initiated", "ringing", "answered"])
      expect(yield* sim.calls.get({ config: config({}), providerCallId: id })).toEqual({ _tag: "InProgress" })
      yield* TestClock.adjust(5000)
      expect(kinds(events)).toEqual(["initiated", "ringing", "answered", "ended:completed:5"])
      expect(events.at(-1)!.at).toBe(7000)
      expect(yield* sim.calls.get({ config: config({}), providerCallId: id })).toEqual({ _tag: "Ended", outcome: "completed", durationSeconds: 5 })
    }))

  it.scoped("rules give one outcome per attempt, exact before the longest prefix; unanswered calls last the ring", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const settings = {
        ring_seconds: 1,
        talk_seconds: 1,
        rules: [
          { match: "prefix", pattern: "+1415", outcomes: ["no_answer"] },
          { match: "prefix", pattern: "+1415555", outcomes: ["busy", "completed"] },
          { match: "exact", pattern: "+14155550199", outcomes: ["voicemail"] }
        ]
      }
      const first = yield* dial(sim, settings, "+14155550100")
      const second = yield* dial(sim, settings, "+14155550100")
      const third = yield* dial(sim, settings, "+14155550100")
      const other = yield* dial(sim, settings, "+14156660100")
      const exact = yield* dial(sim, settings, "+14155550199")
      const fallback = yield* dial(sim, settings, "+442079460018")
      yield* TestClock.adjust(5000)
      expect(kinds(first.events).at(-1)).toBe("ended:busy:0")
      expect(kinds(second.events).at(-1)).toBe("ended:completed:1")
      expect(kinds(third.events).at(-1)).toBe("ended:completed:1")
      expect(kinds(other.events).at(-1)).toBe("ended:no_answer:0")
      expect(kinds(exact.events).at(-1)).toBe("ended:voicemail:1")
      expect(kinds(fallback.events).at(-1)).toBe("ended:completed:1")
    }))

  it.scoped("a seeded failure rate is deterministic; zero durations work; hanging up an answered call completes it", () =>
    Effect.gen(function*() {
      const run = Effect.gen(function*() {
        const sim = yield* Simulator.make()
        const outcomes: Array<string> = []
        for (let i = 0; i < 40; i++) {
          const call = yield* dial(sim, { ring_seconds: 0, talk_seconds: 0, failure_rate: 0.3, seed: 42 }, `+1415555${1000 + i}`)
          yield* TestClock.adjust(0)
          outcomes.push(kinds(call.events).at(-1)!)
        }
        return outcomes
      })
      const a = yield* Effect.scoped(run)
      const b = yield* Effect.scoped(run)
      expect(a).toEqual(b)
      const failed = a.filter((o) => o.startsWith("ended:failed")).length
      expect(failed).toBeGreaterThan(4)
      expect(failed).toBeLessThan(20)

      const sim = yield* Simulator.make()
      const long = yield* dial(sim, { ring_seconds: 1, talk_seconds: 60 }, "+14155550100")
      yield* TestClock.adjust(11_000)
      yield* sim.calls.hangUp({ config: config({}), providerCallId: long.id })
      expect(kinds(long.events).at(-1)).toBe("ended:completed:10")
      yield* TestClock.adjust(60_000)
      expect(long.events.filter((e) => e.type === "ended")).toHaveLength(1)
      expect((yield* sim.calls.get({ config: config({}), providerCallId: "sim-unknown" }))._tag).toBe("Unknown")
    }))
})

describe("the simulator's records", () => {
  it("keep the newest entries up to their bound, a re-set entry counting as new", () => {
    const map = new Map<string, number>()
    for (const [key, value] of [["a", 1], ["b", 2], ["c", 3]] as const) Simulator.rememberBounded(map, key, value, 3)
    Simulator.rememberBounded(map, "a", 4, 3)
    Simulator.rememberBounded(map, "d", 5, 3)
    expect([...map]).toEqual([["c", 3], ["a", 4], ["d", 5]])
  })
})
