import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Metric, Option, Stream, TestClock } from "effect"
import { frames, heardOf, heardPrefix, makeSpeaker } from "../../src/pipeline/Speaker.js"
import { makeCallRecord } from "../../src/session/CallRecord.js"
import { framesLate, framesSent } from "../../src/TurnTelemetry.js"
import { sessionSettings } from "../../src/session/SessionSettings.js"

describe("Speaker", () => {
  it("cuts PCM into 20 ms frames at its own rate (the last one shorter)", () => {
    expect(frames({ sampleRate: 8000, samples: new Int16Array(500) }).map((f) => f.samples.length)).toEqual([160, 160, 160, 20])
    expect(frames({ sampleRate: 16000, samples: new Int16Array(640) }).map((f) => f.samples.length)).toEqual([320, 320])
  })

  it("what was heard of a cut sentence: whole words in proportion to the audio played", () => {
    expect(heardPrefix("one two three four", 0.5)).toBe("one two")
    expect(heardPrefix("one two three four", 0.1)).toBe("")
    expect(heardPrefix("one two", 1)).toBe("one two")
    // Sentences taken one at a time: each owns the audio up to the next one's take.
    const oneByOne = [{ text: "One two.", atMs: 0 }, { text: "Three four five six.", atMs: 400 }, { text: "Seven.", atMs: 1200 }]
    expect(heardOf({ taken: oneByOne, synthesizedMs: 1500, sentMs: 800 })).toBe("One two. Three four")
    expect(heardOf({ taken: oneByOne, synthesizedMs: 1500, sentMs: 1500 })).toBe("One two. Three four five six. Seven.")
    expect(heardOf({ taken: oneByOne, synthesizedMs: 1500, sentMs: 100 })).toBe("")
    // Sentences taken together (a vendor that takes the whole reply) share their audio in proportion.
    const together = [{ text: "First sentence.", atMs: 0 }, { text: "Second one.", atMs: 0 }]
    expect(heardOf({ taken: together, synthesizedMs: 1000, sentMs: 500 })).toBe("First sentence.")
    expect(heardOf({ taken: [{ text: "Not yet spoken.", atMs: 0 }], synthesizedMs: 0, sentMs: 0 })).toBe("")
  })
})

/**
 * Plays a recording of `count` frames (8 kHz) on the TestClock, which moves 10 ms at a time; sending
 * the 8th frame takes `stallMs` (the process was busy, the pacer could not run). How many frames were
 * counted as sent and as late.
 */
const pace = (count: number, stallMs: number) =>
  Effect.gen(function*() {
    let played = 0
    const speaker = makeSpeaker({
      audio: {
        sampleRate: 8000,
        play: () => Effect.suspend(() => ++played === 8 ? TestClock.adjust(stallMs) : Effect.void),
        mark: () => Effect.void
      },
      tts: { synthesize: () => Stream.empty },
      record: makeCallRecord(8000),
      callTime: Clock.currentTimeMillis
    })
    const sent = (yield* Metric.value(framesSent)).count
    const late = (yield* Metric.value(framesLate)).count
    const playing = yield* Effect.fork(Effect.scoped(Effect.flatMap(speaker.reply, (r) => r.recording("hello", { sampleRate: 8000, samples: new Int16Array(160 * count) }))))
    while (Option.isNone(yield* Fiber.poll(playing))) {
      yield* TestClock.adjust(10)
      yield* Effect.yieldNow()
    }
    yield* Fiber.join(playing)
    expect(played).toBe(count)
    return { sent: (yield* Metric.value(framesSent)).count - sent, late: (yield* Metric.value(framesLate)).count - late }
  })

describe("Speaker's pacer metrics", () => {
  it.effect("counts every frame sent; none late while the clock keeps up", () =>
    Effect.gen(function*() {
      expect(yield* pace(30, 0)).toEqual({ sent: 30, late: 0 })
      expect(yield* pace(30, 15)).toEqual({ sent: 30, late: 0 })
    }))

  it.effect("a frame sent after its slot, once the process was stalled, is counted late", () =>
    Effect.gen(function*() {
      // After the stall the pacer starts again from now: one frame late, not all that follow.
      expect(yield* pace(30, 300)).toEqual({ sent: 30, late: 1 })
    }))
})

describe("SessionSettings", () => {
  it("reads the reference's keys, treats nulls and bad values as unset, caps the call at 1200 s", () => {
    expect(sessionSettings(null)).toMatchObject({ idleMillis: 10_000, maxCallMillis: 300_000, vad: { stopMillis: 800 } })
    expect(sessionSettings({ smart_turn_stop_secs: 0.5, max_user_idle_timeout: 4, max_call_duration: 60 }))
      .toMatchObject({ idleMillis: 4000, maxCallMillis: 60_000, vad: { stopMillis: 500 } })
    expect(sessionSettings({ smart_turn_stop_secs: null, max_user_idle_timeout: -1, max_call_duration: 5000 }))
      .toMatchObject({ idleMillis: 10_000, maxCallMillis: 1_200_000, vad: { stopMillis: 800 } })
  })
})
