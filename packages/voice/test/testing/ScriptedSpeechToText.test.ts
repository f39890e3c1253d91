import * as Pcm from "@agentline/core/audio/Pcm"
import type { AudioFrame } from "@agentline/core/audio/AudioFormat"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import * as ScriptedSpeechToText from "../../src/testing/ScriptedSpeechToText.js"

const RATE = 8000
/** 20 ms of a 300 Hz tone (`amplitude` 0: near silence), as the runtime hands audio to a recognizer (L16). */
const frameOf = (amplitude: number): AudioFrame =>
  Pcm.encode(
    { sampleRate: RATE, samples: Int16Array.from({ length: 160 }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 300 * i) / RATE)) + 1) },
    { encoding: "l16le", sampleRate: RATE }
  )
const repeat = (n: number, frame: AudioFrame): ReadonlyArray<AudioFrame> => Array.from({ length: n }, () => frame)

describe("ScriptedSpeechToText (the test recognizer)", () => {
  it.effect("says its lines at each pause and reports the audio it was given: before each final and the rest at the end", () =>
    Effect.gen(function*() {
      const stt = ScriptedSpeechToText.make(() => ["Yes.", "Paris."])
      // 0.5 s quiet, 1 s voice, 1 s quiet, 0.6 s voice, 1 s quiet: 4.1 s in all, one frame at a time.
      const audio = [
        ...repeat(25, frameOf(0)), ...repeat(50, frameOf(8000)), ...repeat(50, frameOf(0)),
        ...repeat(30, frameOf(8000)), ...repeat(50, frameOf(0))
      ]
      const events = Chunk.toReadonlyArray(
        yield* Stream.runCollect(stt.transcribe({ encoding: "l16le", sampleRate: RATE }, Stream.fromIterable(audio).pipe(Stream.rechunk(1))))
      )
      expect(events.flatMap((e) => (e._tag === "Final" ? [e.text] : []))).toEqual(["Yes.", "Paris."])
      const reported = events.flatMap((e) => (e._tag === "Metadata" ? [e.audioSeconds] : []))
      // Each final's report is the audio up to the pause that ended its utterance (300 ms after the voice).
      expect(reported).toEqual([1.8, 1.6, 0.7])
      expect(reported.reduce((a, b) => a + b, 0)).toBeCloseTo(4.1, 6)
      expect(events.map((e) => e._tag).filter((t) => t !== "SpeechStarted")).toEqual([
        "Metadata", "Final", "UtteranceEnd", "Metadata", "Final", "UtteranceEnd", "Metadata"
      ])
    }))
})
