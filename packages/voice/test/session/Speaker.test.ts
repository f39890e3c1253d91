import { describe, expect, it } from "@effect/vitest"
import { frames, heardOf, heardPrefix } from "../../src/pipeline/Speaker.js"
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
    // A stretch cut after half the audio that came back: half the words the synthesizer had taken.
    expect(heardOf({ taken: ["First sentence.", "Second one."], synthesizedMs: 1000, sentMs: 500 })).toBe("First sentence.")
    expect(heardOf({ taken: ["Not yet spoken."], synthesizedMs: 0, sentMs: 0 })).toBe("")
  })
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
