import { NodeContext } from "@effect/platform-node"
import type { AudioFormat, AudioFrame } from "@agentline/core/audio/AudioFormat"
import { describe, expect, layer } from "@effect/vitest"
import { SpeechToText, TextToSpeech } from "@agentline/core/voice/Speech"
import { Chunk, Effect, Layer, Stream } from "effect"
import { durationMs } from "@agentline/core/audio/AudioFormat"
import * as LocalSpeechToText from "../src/LocalSpeechToText.js"
import * as LocalTextToSpeech from "../src/LocalTextToSpeech.js"

const Engines = Layer.mergeAll(
  LocalTextToSpeech.layer(),
  LocalSpeechToText.layer(),
  LocalTextToSpeech.portLayer(),
  LocalSpeechToText.portLayer()
).pipe(
  Layer.provide(NodeContext.layer)
)
const telephone: AudioFormat = { encoding: "mulaw", sampleRate: 8000 }
const wideband: AudioFormat = { encoding: "l16le", sampleRate: 16000 }

const speak = (text: string, format: AudioFormat) =>
  Effect.flatMap(LocalTextToSpeech.LocalTextToSpeech, (tts) => Stream.runCollect(tts.synthesize(text, format))).pipe(
    Effect.map(Chunk.toReadonlyArray)
  )

/** Speech, then a second of silence so the recognizer's own voice detection closes the utterance. */
const withPause = (frames: ReadonlyArray<AudioFrame>, format: AudioFormat): ReadonlyArray<AudioFrame> => {
  const silence = format.encoding === "mulaw" ? 0xff : 0
  const second = new Uint8Array(format.sampleRate * (format.encoding === "mulaw" ? 1 : 2)).fill(silence)
  return [...frames, { format, data: second }]
}

describe("local engines (espeak-ng, sox, pocketsphinx)", () => {
  layer(Engines, { timeout: "60 seconds" })((it) => {
    it.effect("espeak-ng speaks a sentence as 20 ms µ-law frames of plausible length", () =>
      Effect.gen(function*() {
        const frames = yield* speak("Hello, thanks for calling. How can I help you today?", telephone)
        expect(frames.length).toBeGreaterThan(50)
        expect(frames.slice(0, -1).every((frame) => frame.data.length === 160)).toBe(true)
        expect(frames.every((frame) => frame.format === telephone)).toBe(true)
        const seconds = frames.reduce((ms, frame) => ms + durationMs(telephone, frame.data.length), 0) / 1000
        expect(seconds).toBeGreaterThan(1.5)
        expect(seconds).toBeLessThan(6)
        // Not silence: µ-law silence is 0xFF/0x7F.
        expect(frames.some((frame) => frame.data.some((byte) => byte !== 0xff && byte !== 0x7f))).toBe(true)
      }))

    it.effect("text that looks like an option is spoken, not parsed", () =>
      Effect.gen(function*() {
        const frames = yield* speak("--help -w /tmp/x", wideband)
        expect(frames.length).toBeGreaterThan(10)
        expect(frames.slice(0, -1).every((frame) => frame.data.length === 640)).toBe(true)
      }))

    it.effect("pocketsphinx hears espeak-ng's phrases at 16 kHz and over a µ-law phone line, utterance by utterance", () =>
      Effect.gen(function*() {
        const stt = yield* LocalSpeechToText.LocalSpeechToText
        const phrases = ["yes please", "can you call me back tomorrow", "goodbye", "hello i would like to book an appointment"]
        for (const format of [wideband, telephone]) {
          const audio: Array<AudioFrame> = []
          for (const phrase of [phrases[1]!, phrases[0]!]) audio.push(...withPause(yield* speak(phrase, format), format))
          const heard = yield* Stream.runCollect(stt.transcribe(Stream.fromIterable(audio), { phrases }))
          expect(Chunk.toReadonlyArray(heard), format.encoding).toEqual([phrases[1], phrases[0]])
        }
      }))

    it.effect("as the ports: sentences spoken in order, each heard utterance a Final at the end of speech", () =>
      Effect.gen(function*() {
        const tts = yield* TextToSpeech
        const stt = yield* SpeechToText
        const spoken = Chunk.toReadonlyArray(yield* Stream.runCollect(tts.synthesize(wideband, Stream.make("yes please", " ", "goodbye"))))
        const [first, second] = [yield* speak("yes please", wideband), yield* speak("goodbye", wideband)]
        expect(spoken.map((s) => s.audio.data.length)).toEqual([...first, ...second].map((f) => f.data.length))
        const audio = [...withPause(first, wideband), ...withPause(second, wideband)]
        const events = Chunk.toReadonlyArray(
          yield* Stream.runCollect(stt.transcribe(wideband, Stream.fromIterable(audio), { phrases: ["yes please", "goodbye"] }))
        )
        expect(events.filter((e) => e._tag !== "Metadata")).toEqual([
          { _tag: "Final", text: "yes please", endOfSpeech: true, start: 0, duration: 0 },
          { _tag: "Final", text: "goodbye", endOfSpeech: true, start: 0, duration: 0 }
        ])
        // Usage: the audio it was given, reported before each final (a call may end before the
        // recognizer's stream does) and the rest at the end; together exactly the audio's length.
        const given = audio.reduce((ms, frame) => ms + durationMs(wideband, frame.data.length), 0) / 1000
        const reported = events.flatMap((e) => (e._tag === "Metadata" ? [e.audioSeconds] : []))
        expect(reported.reduce((a, b) => a + b, 0)).toBeCloseTo(given, 5)
        expect(events.findIndex((e) => e._tag === "Metadata")).toBeLessThan(events.findIndex((e) => e._tag === "Final"))
        expect(reported[0]).toBeGreaterThan(0.5)
      }))

    it.effect("a failing audio source fails the transcription with its own error", () =>
      Effect.gen(function*() {
        const stt = yield* LocalSpeechToText.LocalSpeechToText
        const audio = Stream.concat(Stream.fromIterable(yield* speak("goodbye", wideband)), Stream.fail("line dropped" as const))
        const result = yield* Stream.runCollect(stt.transcribe(audio, { phrases: ["goodbye"] })).pipe(Effect.flip)
        expect(result).toBe("line dropped")
      }))
  })
})
