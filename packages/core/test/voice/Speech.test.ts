import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, FastCheck, Stream } from "effect"
import type { AudioFormat, AudioFrame } from "../../src/audio/AudioFormat.js"
import { frameSeconds, meterAudio, type SpeechEvent } from "../../src/voice/Speech.js"

const mulaw8k: AudioFormat = { encoding: "mulaw", sampleRate: 8000 }
const l16k: AudioFormat = { encoding: "l16le", sampleRate: 16000 }

/** A stand-in recognizer: a `Final` after each frame marked `final`, and a vendor `Metadata` of its own at the end. */
const recognizer = (marks: ReadonlyArray<boolean>) => (audio: Stream.Stream<AudioFrame>): Stream.Stream<SpeechEvent> =>
  Stream.suspend(() => {
    let index = 0
    return audio.pipe(
      Stream.mapConcat((): ReadonlyArray<SpeechEvent> =>
        marks[index++] === true ? [{ _tag: "Final", text: `after ${index}`, endOfSpeech: true, start: 0, duration: 0 }] : []
      ),
      Stream.concat(Stream.make<Array<SpeechEvent>>({ _tag: "Metadata", audioSeconds: 999 }))
    )
  })

const run = (frames: ReadonlyArray<AudioFrame>, marks: ReadonlyArray<boolean>) =>
  Stream.runCollect(meterAudio(Stream.fromIterable(frames).pipe(Stream.rechunk(1)), recognizer(marks))).pipe(
    Effect.map(Chunk.toReadonlyArray),
    Effect.runSync
  )

const seconds = (events: ReadonlyArray<SpeechEvent>) =>
  events.reduce((sum, e) => sum + (e._tag === "Metadata" ? e.audioSeconds : 0), 0)

describe("frameSeconds", () => {
  it("G.711 is a byte a sample, L16 two", () => {
    expect(frameSeconds({ format: mulaw8k, data: new Uint8Array(160) })).toBe(0.02)
    expect(frameSeconds({ format: l16k, data: new Uint8Array(640) })).toBe(0.02)
    expect(frameSeconds({ format: { encoding: "l16be", sampleRate: 24000 }, data: new Uint8Array(48000) })).toBe(1)
  })
})

describe("meterAudio", () => {
  it("reports the audio heard so far before each final and the rest at the end, in place of the recognizer's own", () => {
    // Three seconds of 20 ms frames; finals after 1 s and after 2.5 s.
    const frames = Array.from({ length: 150 }, () => ({ format: mulaw8k, data: new Uint8Array(160) }))
    const marks = frames.map((_, i) => i === 49 || i === 124)
    expect(run(frames, marks)).toEqual([
      { _tag: "Metadata", audioSeconds: 1 },
      { _tag: "Final", text: "after 50", endOfSpeech: true, start: 0, duration: 0 },
      { _tag: "Metadata", audioSeconds: 1.5 },
      { _tag: "Final", text: "after 125", endOfSpeech: true, start: 0, duration: 0 },
      { _tag: "Metadata", audioSeconds: 0.5 }
    ])
  })

  it("no audio, no report", () => {
    expect(run([], [])).toEqual([])
  })

  const frame = FastCheck.record({
    format: FastCheck.constantFrom<AudioFormat>(mulaw8k, l16k, { encoding: "alaw", sampleRate: 8000 }, { encoding: "l16be", sampleRate: 24000 }),
    samples: FastCheck.integer({ min: 1, max: 960 })
  }).map(({ format, samples }): AudioFrame => ({
    format,
    data: new Uint8Array(format.encoding === "mulaw" || format.encoding === "alaw" ? samples : samples * 2)
  }))

  it.prop(
    "the reports add up to the audio given, each is positive, and none of the recognizer's own is let through",
    [FastCheck.array(FastCheck.tuple(frame, FastCheck.boolean()), { maxLength: 200 })],
    ([input]) => {
      const frames = input.map(([f]) => f)
      const events = run(frames, input.map(([, mark]) => mark))
      const given = frames.reduce((sum, f) => sum + frameSeconds(f), 0)
      expect(seconds(events)).toBeCloseTo(given, 5)
      const reports = events.filter((e) => e._tag === "Metadata")
      expect(reports.every((e) => e._tag === "Metadata" && e.audioSeconds > 0 && e.audioSeconds !== 999)).toBe(true)
      // Each final comes after at least one new frame, so right after the report of the audio up to it.
      events.forEach((event, i) => {
        if (event._tag === "Final") expect(events[i - 1]?._tag).toBe("Metadata")
      })
      expect(events.filter((e) => e._tag === "Final").length).toBe(input.filter(([, mark]) => mark).length)
    }
  )
})
