import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { defaultVadSettings, type EnergyVadState, initialEnergyVadState, levelDbfs, stepVad, type VadEvent } from "../../src/session/Vad.js"

const RATE = 8000
const frameOf = (amplitude: number, ms = 20, rate = RATE) => ({
  sampleRate: rate,
  samples: Int16Array.from({ length: (rate * ms) / 1000 }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 300 * i) / rate)))
})

/** Feeds `frames` and collects the events with the state at the end. */
const feed = (frames: ReadonlyArray<ReturnType<typeof frameOf>>, settings = defaultVadSettings) => {
  let state: EnergyVadState = initialEnergyVadState
  const events: Array<VadEvent> = []
  for (const frame of frames) {
    const [next, changes] = stepVad(settings, state, frame)
    state = next
    events.push(...changes)
  }
  return { state, events }
}

const repeat = <A>(n: number, a: A): ReadonlyArray<A> => Array.from({ length: n }, () => a)

describe("Vad", () => {
  it("levels: digital silence is -100 dBFS, a full-scale sine about -3 dBFS", () => {
    expect(levelDbfs(new Int16Array(160))).toBe(-100)
    expect(levelDbfs(frameOf(32767).samples)).toBeCloseTo(-3, 0)
    expect(levelDbfs(new Int16Array(0))).toBe(-100)
  })

  it("speech after silence starts once it lasted startMillis, dated where the voice began; stops after stopMillis of silence", () => {
    const { events } = feed([...repeat(25, frameOf(30)), ...repeat(50, frameOf(8000)), ...repeat(45, frameOf(30))])
    expect(events).toEqual([
      { _tag: "SpeechStarted", atMs: 500 },
      { _tag: "SpeechStopped", atMs: 1500 }
    ])
  })

  it("times speech by the frames' own rate: a 16 kHz call (Vonage) gives the events of an 8 kHz one", () => {
    const at = (rate: number) => feed([...repeat(25, frameOf(30, 20, rate)), ...repeat(50, frameOf(8000, 20, rate)), ...repeat(45, frameOf(30, 20, rate))]).events
    expect(at(16000)).toEqual(at(8000))
    expect(at(24000)).toEqual(at(8000))
  })

  it("a click shorter than startMillis is not speech (no barge-in on a breath)", () => {
    expect(feed([...repeat(25, frameOf(30)), ...repeat(3, frameOf(8000)), ...repeat(25, frameOf(30))]).events).toEqual([])
  })

  it("a pause shorter than the stop time does not end the turn", () => {
    const { events } = feed([...repeat(10, frameOf(0)), ...repeat(20, frameOf(8000)), ...repeat(30, frameOf(0)), ...repeat(20, frameOf(8000))])
    expect(events.map((e) => e._tag)).toEqual(["SpeechStarted"])
  })

  it("the stop time comes from the settings (endpointing)", () => {
    const frames = [...repeat(20, frameOf(8000)), ...repeat(30, frameOf(0))]
    expect(feed(frames, { ...defaultVadSettings, stopMillis: 500 }).events.map((e) => e._tag)).toEqual(["SpeechStarted", "SpeechStopped"])
    expect(feed(frames, { ...defaultVadSettings, stopMillis: 700 }).events.map((e) => e._tag)).toEqual(["SpeechStarted"])
  })

  it("a steady noisy line raises the floor: its hum is not speech, speech over it still is", () => {
    const { events } = feed([...repeat(200, frameOf(600)), ...repeat(20, frameOf(12000))])
    expect(events.map((e) => e._tag)).toEqual(["SpeechStarted"])
  })

  it("property: events alternate start/stop, in time order, within the audio given", () => {
    FastCheck.assert(FastCheck.property(
      FastCheck.array(FastCheck.tuple(FastCheck.constantFrom(0, 30, 600, 8000, 20000), FastCheck.integer({ min: 1, max: 60 })), { maxLength: 30 }),
      (runs) => {
        const frames = runs.flatMap(([amplitude, n]) => repeat(n, frameOf(amplitude)))
        const { events, state } = feed(frames)
        events.forEach((e, i) => expect(e._tag).toBe(i % 2 === 0 ? "SpeechStarted" : "SpeechStopped"))
        for (let i = 1; i < events.length; i++) expect(events[i]!.atMs).toBeGreaterThanOrEqual(events[i - 1]!.atMs)
        for (const e of events) expect(e.atMs).toBeLessThanOrEqual(state.atMs)
        expect(state.speaking).toBe(events.length % 2 === 1)
      }
    ))
  })
})
