import type { CallEvent, CallOutcome } from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyRegistry"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, Fiber, ParseResult, Schema, Scope, TestClock } from "effect"
import { Simulator } from "../src/index.js"

type Sim = Simulator.SimulatorProvider

const config = (input: Record<string, unknown> = {}) => Schema.decodeUnknownSync(Simulator.SimulatorConfig)(input)

/** Places a call and records its events as `type@millis` (ended: `ended:outcome:duration@millis`). */
const dial = (
  sim: Sim,
  settings: Record<string, unknown>,
  to: string,
  onEvent: (event: CallEvent) => Effect.Effect<void> = () => Effect.void
) =>
  Effect.gen(function*() {
    const events: Array<CallEvent> = []
    const placed = yield* sim.calls.place({
      config: config(settings),
      to,
      from: "+14155550000",
      attemptId: 42,
      whenAnswered: { _tag: "KeepOpen" },
      callbackUrl: "http://127.0.0.1/callback",
      answerUrl: "http://127.0.0.1/answer",
      onEvent: (event) => Effect.zipRight(Effect.sync(() => void events.push(event)), onEvent(event))
    })
    return { events, id: placed.providerCallId }
  })

const trace = (events: ReadonlyArray<CallEvent>) =>
  events.map((e) => (e.type === "ended" ? `ended:${e.outcome}:${e.durationSeconds}@${e.at}` : `${e.type}@${e.at}`))

const last = (events: ReadonlyArray<CallEvent>) => {
  const e = events.at(-1)
  return e === undefined ? "none" : e.type === "ended" ? `${e.outcome}:${e.durationSeconds}` : e.type
}

const status = (sim: Sim, providerCallId: string) => sim.calls.get({ config: config(), providerCallId })

const callback = (sim: Sim, body: unknown) =>
  sim.webhooks.parseStatus({
    config: config(),
    request: {
      method: "POST",
      url: "http://127.0.0.1/api/v1/telephony/callbacks/simulator/1",
      headers: { "content-type": "application/json" },
      rawBody: new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body))
    }
  })

describe("simulator configuration", () => {
  it("has the documented defaults", () => {
    expect(config()).toEqual({
      default_outcome: "completed",
      rules: [],
      ring_seconds: 2,
      talk_seconds: 5,
      failure_rate: 0,
      seed: 1,
      place_call_latency_ms: 0,
      account_id: "simulator",
      callee_lines: []
    })
  })

  it("reports every invalid field at once and drops unknown keys", () => {
    const result = Schema.decodeUnknownEither(Simulator.SimulatorConfig)({
      default_outcome: "hung",
      ring_seconds: -1,
      talk_seconds: "long",
      failure_rate: 1.5,
      seed: 1.5,
      place_call_latency_ms: 70_000,
      rules: [{ match: "suffix", pattern: "", outcomes: [] }]
    })
    expect(Either.isLeft(result)).toBe(true)
    const paths = ParseResult.ArrayFormatter.formatErrorSync((result as Either.Left<ParseResult.ParseError, unknown>).left)
      .map((i) => i.path.join("."))
    expect(new Set(paths.map((p) => p.split(".")[0]))).toEqual(
      new Set(["default_outcome", "ring_seconds", "talk_seconds", "failure_rate", "seed", "place_call_latency_ms", "rules"])
    )
    expect(paths).toContain("rules.0.match")
    expect(paths).toContain("rules.0.pattern")
    expect(paths.some((p) => p.startsWith("rules.0.outcomes"))).toBe(true)
    expect(config({ provider: "simulator", from_numbers: ["+1"], ring_seconds: 0 })).not.toHaveProperty("from_numbers")
  })

  it("lists a metadata field for every config key, none of them required, only the webhook secret sensitive", () => {
    expect(Simulator.fields.map((f) => f.name).sort()).toEqual(Object.keys(config({ webhook_secret: "s" })).sort())
    expect(Simulator.fields.every((f) => !f.required)).toBe(true)
    expect(Simulator.fields.filter((f) => f.sensitive).map((f) => f.name)).toEqual(["webhook_secret"])
  })
})

describe("outcome rules (pure)", () => {
  const rules: ReadonlyArray<Simulator.Rule> = [
    { match: "prefix", pattern: "+1", outcomes: ["no_answer"] },
    { match: "exact", pattern: "+14155550199", outcomes: ["voicemail"] },
    { match: "prefix", pattern: "+1415555", outcomes: ["busy", "busy", "completed"] },
    { match: "prefix", pattern: "+1415", outcomes: ["failed"] }
  ]
  const settings = { rules, default_outcome: "canceled" as const }

  it.each([
    ["+14155550100", 0, "busy"],
    ["+14155550100", 1, "busy"],
    ["+14155550100", 2, "completed"],
    ["+14155550100", 9, "completed"],
    ["+14155550199", 0, "voicemail"],
    ["+14155550199", 5, "voicemail"],
    ["+14156660000", 0, "failed"],
    ["+12125550100", 0, "no_answer"],
    ["+442079460018", 0, "canceled"],
    ["sip:desk@pbx.example.com", 3, "canceled"]
  ] as const)("%s, attempt %d → %s", (to, attempt, expected) => {
    expect(Simulator.outcomeFor(settings, to, attempt)).toBe(expected)
  })

  it("prefers an exact rule wherever it is listed, then the longest prefix", () => {
    expect(Simulator.ruleFor(rules, "+14155550199")?.match).toBe("exact")
    expect(Simulator.ruleFor([...rules].reverse(), "+14155550199")?.match).toBe("exact")
    expect(Simulator.ruleFor([...rules].reverse(), "+14155550100")?.pattern).toBe("+1415555")
    expect(Simulator.ruleFor(rules, "+4420")).toBeUndefined()
  })

  it("draws failures from the seed, the number and the attempt only", () => {
    const draws = Array.from({ length: 4000 }, (_, i) => Simulator.failureDraw(7, `+1415555${String(i).padStart(4, "0")}`, 0))
    expect(draws.every((d) => d >= 0 && d < 1)).toBe(true)
    const share = draws.filter((d) => d < 0.25).length / draws.length
    expect(share).toBeGreaterThan(0.22)
    expect(share).toBeLessThan(0.28)
    expect(Simulator.failureDraw(7, "+14155550100", 0)).toBe(Simulator.failureDraw(7, "+14155550100", 0))
    expect(Simulator.failureDraw(7, "+14155550100", 0)).not.toBe(Simulator.failureDraw(8, "+14155550100", 0))
    expect(Simulator.failureDraw(7, "+14155550100", 0)).not.toBe(Simulator.failureDraw(7, "+14155550100", 1))
  })

  it("applies the failure rate on top of the scripted outcome; rate 0 never fails, rate 1 always does", () => {
    const numbers = Array.from({ length: 200 }, (_, i) => `+1212555${String(i).padStart(4, "0")}`)
    expect(numbers.map((n) => Simulator.decideOutcome(config({ failure_rate: 0 }), n, 0)).every((o) => o === "completed")).toBe(true)
    expect(numbers.map((n) => Simulator.decideOutcome(config({ failure_rate: 1, default_outcome: "busy" }), n, 0)).every((o) => o === "failed"))
      .toBe(true)
    const some = numbers.map((n) => Simulator.decideOutcome(config({ failure_rate: 0.5, default_outcome: "busy" }), n, 0))
    expect(new Set(some)).toEqual(new Set(["failed", "busy"]))
  })
})

describe("simulated calls on the clock", () => {
  const timeline: ReadonlyArray<readonly [CallOutcome, ReadonlyArray<string>]> = [
    ["completed", ["initiated@0", "ringing@300", "answered@2300", "ended:completed:5@7300"]],
    ["voicemail", ["initiated@0", "ringing@300", "answered@2300", "ended:voicemail:5@7300"]],
    ["busy", ["initiated@0", "ringing@300", "ended:busy:0@2300"]],
    ["no_answer", ["initiated@0", "ringing@300", "ended:no_answer:0@2300"]],
    ["failed", ["initiated@0", "ringing@300", "ended:failed:0@2300"]],
    ["canceled", ["initiated@0", "ringing@300", "ended:canceled:0@2300"]]
  ]

  for (const [outcome, expected] of timeline) {
    it.scoped(`${outcome}: ${expected.join(", ")}`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.make()
        const call = yield* dial(sim, { default_outcome: outcome, ring_seconds: 2, talk_seconds: 5, place_call_latency_ms: 300 }, "+14155550100")
        yield* TestClock.adjust(0)
        expect(trace(call.events)).toEqual(["initiated@0"])
        expect(yield* status(sim, call.id)).toEqual({ _tag: "InProgress" })
        yield* TestClock.adjust(299)
        expect(call.events).toHaveLength(1)
        yield* TestClock.adjust(1)
        expect(trace(call.events)).toEqual(expected.slice(0, 2))
        yield* TestClock.adjust(2000)
        expect(trace(call.events)).toEqual(expected.slice(0, 3))
        yield* TestClock.adjust(5000)
        expect(trace(call.events)).toEqual(expected)
        const end = call.events.at(-1)!
        expect(end.type === "ended" && end.hangupCause).toMatch(/^simulated: /)
        expect(yield* status(sim, call.id)).toEqual({
          _tag: "Ended",
          outcome,
          durationSeconds: outcome === "completed" || outcome === "voicemail" ? 5 : 0
        })
        yield* TestClock.adjust(60_000)
        expect(trace(call.events)).toEqual(expected)
      }))
  }

  it.scoped("zero ring, talk and latency: the whole call happens at once", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const answered = yield* dial(sim, { ring_seconds: 0, talk_seconds: 0 }, "+14155550100")
      const busy = yield* dial(sim, { ring_seconds: 0, talk_seconds: 0, default_outcome: "busy" }, "+14155550101")
      yield* TestClock.adjust(0)
      expect(trace(answered.events)).toEqual(["initiated@0", "ringing@0", "answered@0", "ended:completed:0@0"])
      expect(trace(busy.events)).toEqual(["initiated@0", "ringing@0", "ended:busy:0@0"])
      expect(yield* status(sim, answered.id)).toEqual({ _tag: "Ended", outcome: "completed", durationSeconds: 0 })
    }))

  it.scoped("fractional seconds are honoured", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const call = yield* dial(sim, { ring_seconds: 0.5, talk_seconds: 1.25 }, "+14155550100")
      yield* TestClock.adjust(1750)
      expect(trace(call.events)).toEqual(["initiated@0", "ringing@0", "answered@500", "ended:completed:1.25@1750"])
    }))

  it.scoped("each number's attempts walk its rule's outcomes, the last repeating; a new instance starts over", () =>
    Effect.gen(function*() {
      const settings = {
        ring_seconds: 1,
        talk_seconds: 1,
        rules: [
          { match: "prefix", pattern: "+1415", outcomes: ["no_answer", "busy", "completed"] },
          { match: "exact", pattern: "+14155550199", outcomes: ["voicemail", "failed"] }
        ]
      }
      const sim = yield* Simulator.make()
      const outcomes: Record<string, Array<string>> = { "+14155550100": [], "+14155550199": [], "+14155550101": [] }
      for (let round = 0; round < 4; round++) {
        for (const to of Object.keys(outcomes)) {
          const call = yield* dial(sim, settings, to)
          yield* TestClock.adjust(5000)
          outcomes[to]!.push(last(call.events))
        }
      }
      expect(outcomes).toEqual({
        "+14155550100": ["no_answer:0", "busy:0", "completed:1", "completed:1"],
        "+14155550199": ["voicemail:1", "failed:0", "failed:0", "failed:0"],
        "+14155550101": ["no_answer:0", "busy:0", "completed:1", "completed:1"]
      })
      const fresh = yield* Simulator.make()
      const again = yield* dial(fresh, settings, "+14155550100")
      yield* TestClock.adjust(5000)
      expect(last(again.events)).toBe("no_answer:0")
    }))

  it.scoped("a seeded failure rate fails the same calls whatever the order they are placed in", () =>
    Effect.gen(function*() {
      const numbers = Array.from({ length: 60 }, (_, i) => `+1415555${String(1000 + i)}`)
      const settings = { ring_seconds: 0, talk_seconds: 0, failure_rate: 0.3, seed: 42 }
      const run = (order: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const sim = yield* Simulator.make()
          const result: Record<string, string> = {}
          for (const to of order) {
            const call = yield* dial(sim, settings, to)
            yield* TestClock.adjust(0)
            result[to] = last(call.events)
          }
          return result
        })
      const forward = yield* run(numbers)
      const backward = yield* run([...numbers].reverse())
      expect(backward).toEqual(forward)
      const failed = Object.values(forward).filter((o) => o === "failed:0").length
      expect(failed).toBeGreaterThan(6)
      expect(failed).toBeLessThan(30)
      expect(Object.values(forward).every((o) => o === "failed:0" || o === "completed:0")).toBe(true)
      const otherSeed = yield* Effect.gen(function*() {
        const sim = yield* Simulator.make()
        const result: Array<string> = []
        for (const to of numbers) {
          const call = yield* dial(sim, { ...settings, seed: 43 }, to)
          yield* TestClock.adjust(0)
          result.push(last(call.events))
        }
        return result
      })
      expect(otherSeed).not.toEqual(Object.values(forward))
    }))

  it.scoped("provider call ids are unique, also across instances", () =>
    Effect.gen(function*() {
      const a = yield* Simulator.make()
      const b = yield* Simulator.make()
      const ids = new Set<string>()
      for (const sim of [a, b, a, b]) ids.add((yield* dial(sim, {}, "+14155550100")).id)
      expect(ids.size).toBe(4)
      const first = [...ids][0]!
      expect((yield* status(b, first))._tag).toBe("Unknown")
    }))

  it.scoped("a call outlives the request that placed it", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const request = yield* Effect.fork(Effect.scoped(dial(sim, { ring_seconds: 1, talk_seconds: 1 }, "+14155550100")))
      const call = yield* Fiber.join(request)
      yield* TestClock.adjust(5000)
      expect(last(call.events)).toBe("completed:1")
    }))

  it.effect("closing the simulator's scope stops its calls without further events", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const sim = yield* Scope.extend(Simulator.make(), scope)
      const call = yield* dial(sim, { ring_seconds: 1, talk_seconds: 10 }, "+14155550100")
      yield* TestClock.adjust(2000)
      expect(last(call.events)).toBe("answered")
      yield* Scope.close(scope, Exit.void)
      yield* TestClock.adjust(60_000)
      expect(last(call.events)).toBe("answered")
    }))

  it.scoped("a failing event handler does not stop the call", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const call = yield* dial(sim, { ring_seconds: 1, talk_seconds: 1 }, "+14155550100", () => Effect.die("handler bug"))
      yield* TestClock.adjust(5000)
      expect(trace(call.events)).toEqual(["initiated@0", "ringing@0", "answered@1000", "ended:completed:1@2000"])
    }))
})

describe("hangup", () => {
  it.scoped("while ringing: canceled with no duration, and nothing after", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const call = yield* dial(sim, { ring_seconds: 10 }, "+14155550100")
      yield* TestClock.adjust(3000)
      yield* sim.calls.hangUp({ config: config(), providerCallId: call.id })
      expect(trace(call.events)).toEqual(["initiated@0", "ringing@0", "ended:canceled:0@3000"])
      yield* TestClock.adjust(60_000)
      expect(call.events).toHaveLength(3)
      expect(yield* status(sim, call.id)).toEqual({ _tag: "Ended", outcome: "canceled", durationSeconds: 0 })
    }))

  it.scoped("while talking: completed with the seconds talked, as carriers report it; hanging up again is a no-op", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const call = yield* dial(sim, { ring_seconds: 1, talk_seconds: 60 }, "+14155550100")
      yield* TestClock.adjust(11_000)
      yield* sim.calls.hangUp({ config: config(), providerCallId: call.id })
      yield* sim.calls.hangUp({ config: config(), providerCallId: call.id })
      yield* TestClock.adjust(120_000)
      expect(trace(call.events)).toEqual(["initiated@0", "ringing@0", "answered@1000", "ended:completed:10@11000"])
    }))

  it.scoped("after the call ended: a no-op that keeps the real outcome", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const call = yield* dial(sim, { ring_seconds: 0, talk_seconds: 3 }, "+14155550100")
      yield* TestClock.adjust(5000)
      yield* sim.calls.hangUp({ config: config(), providerCallId: call.id })
      expect(call.events.filter((e) => e.type === "ended")).toHaveLength(1)
      expect(yield* status(sim, call.id)).toEqual({ _tag: "Ended", outcome: "completed", durationSeconds: 3 })
    }))

  it.scoped("from inside the event handler, on answer", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      let id = ""
      const call = yield* dial(
        sim,
        { ring_seconds: 2, talk_seconds: 30 },
        "+14155550100",
        (event) => event.type === "answered" ? sim.calls.hangUp({ config: config(), providerCallId: id }).pipe(Effect.orDie) : Effect.void
      )
      id = call.id
      yield* TestClock.adjust(2000)
      yield* TestClock.adjust(60_000)
      expect(trace(call.events)).toEqual(["initiated@0", "ringing@0", "answered@2000", "ended:completed:0@2000"])
    }))

  it.scoped("of an unknown call fails, not retryable", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const error = yield* Effect.flip(sim.calls.hangUp({ config: config(), providerCallId: "sim-x-1" }))
      expect(error).toBeInstanceOf(TelephonyError)
      expect(error).toMatchObject({ provider: "simulator", retryable: false })
      expect(yield* status(sim, "sim-x-1")).toMatchObject({ _tag: "Unknown" })
    }))
})

describe("callbacks and the rest of the port", () => {
  it.scoped("parses JSON callbacks into normalized events stamped with the clock", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      yield* TestClock.adjust(1234)
      expect(yield* callback(sim, { call_id: "c1", event: "ringing" })).toEqual([{ type: "ringing", providerCallId: "c1", at: 1234 }])
      expect(yield* callback(sim, { call_id: "c1", event: "ended", outcome: "busy" })).toEqual([
        { type: "ended", providerCallId: "c1", at: 1234, outcome: "busy", durationSeconds: 0 }
      ])
      expect(yield* callback(sim, { call_id: "c1", event: "ended", outcome: "completed", duration: 12 })).toMatchObject([
        { outcome: "completed", durationSeconds: 12 }
      ])
      for (const bad of ["{", { call_id: "c1", event: "ended" }, { call_id: "c1", event: "hold" }, { event: "ringing" }, { call_id: "c1", event: "ended", outcome: "x" }]) {
        const error = yield* Effect.flip(callback(sim, bad))
        expect(error).toMatchObject({ _tag: "TelephonyError", provider: "simulator", retryable: false })
        expect(error.message).toMatch(/^bad simulator callback/)
      }
    }))

  it.scoped("an ended callback decides a live call: its own playback stops, so one ended in all", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const call = yield* dial(sim, { ring_seconds: 1, talk_seconds: 30 }, "+14155550100")
      yield* TestClock.adjust(5000)
      const events = yield* callback(sim, { call_id: call.id, event: "ended", outcome: "voicemail", duration: 4 })
      expect(events).toMatchObject([{ type: "ended", outcome: "voicemail", durationSeconds: 4 }])
      yield* TestClock.adjust(60_000)
      expect(trace(call.events)).toEqual(["initiated@0", "ringing@0", "answered@1000"])
      expect(yield* status(sim, call.id)).toEqual({ _tag: "Ended", outcome: "voicemail", durationSeconds: 4 })
    }))

  it.scoped("without a webhook secret accepts any callback; reports inbound setup as simulated; routes by its account id", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const request = { method: "POST", url: "http://127.0.0.1/cb", headers: {}, rawBody: new Uint8Array() }
      expect(sim.name).toBe("simulator")
      expect(sim.accountId(config())).toBe("simulator")
      expect(sim.accountId(config({ account_id: " lab-2 " }))).toBe("lab-2")
      expect(yield* sim.webhooks.verify({ config: config(), request })).toBe(true)
      const attached = yield* sim.inbound.configure({ config: config(), address: "+14155550100", webhookUrl: "http://127.0.0.1/in" })
      expect(attached.ok).toBe(true)
      expect(attached.message).toContain("simulated")
      expect((yield* sim.inbound.configure({ config: config(), address: "+14155550100", webhookUrl: null })).ok).toBe(true)
      expect(TelephonyRegistry.make([sim]).get("simulator")._tag).toBe("Some")
    }))
})
