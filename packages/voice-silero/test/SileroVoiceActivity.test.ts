import * as Pcm from "@agentline/core/audio/Pcm"
import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import { energy, VoiceActivity } from "@agentline/core/audio/VoiceActivity"
import * as LocalTextToSpeech from "@agentline/voice-local/LocalTextToSpeech"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Effect, Exit, Layer, Stream } from "effect"
import * as SileroVoiceActivity from "../src/SileroVoiceActivity.js"

const Test = Layer.mergeAll(SileroVoiceActivity.layer(), LocalTextToSpeech.layer().pipe(Layer.provide(NodeContext.layer)))

/** espeak-ng's words as PCM16 at `sampleRate`, one array. */
const speech = (text: string, sampleRate: number) =>
  Effect.gen(function*() {
    const tts = yield* LocalTextToSpeech.LocalTextToSpeech
    const format: AudioFormat = { encoding: "l16le", sampleRate }
    const frames = Chunk.toReadonlyArray(yield* Stream.runCollect(tts.synthesize(text, format)))
    return concat(...frames.map((frame) => Pcm.decode(frame).samples))
  })

function concat(...parts: ReadonlyArray<Int16Array>) {
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    all.set(p, at)
    at += p.length
  }
  return all
}

/** Deterministic white noise at about `dbfs`. */
const noise = (samples: number, dbfs: number, seed = 7) => {
  let x = seed
  const amplitude = 32768 * 10 ** (dbfs / 20) * Math.sqrt(3)
  return Int16Array.from({ length: samples }, () => {
    x = (x * 1103515245 + 12345) % 2147483648
    return Math.round((x / 2147483648 * 2 - 1) * amplitude)
  })
}

/** The detector's answer for each `frameMs` frame of `audio`. */
const answers = (service: { readonly detector: VoiceActivity["Type"]["detector"] }, audio: Int16Array, sampleRate: number, frameMs = 20) =>
  Effect.scoped(Effect.gen(function*() {
    const detector = yield* service.detector(sampleRate)
    const size = (sampleRate * frameMs) / 1000
    const out: Array<boolean> = []
    for (let at = 0; at + size <= audio.length; at += size) out.push(yield* detector.isVoice(audio.subarray(at, at + size)))
    return out
  }))

const share = (values: ReadonlyArray<boolean>) => values.filter(Boolean).length / Math.max(1, values.length)

describe("SileroVoiceActivity", () => {
  layer(Test, { timeout: "60 seconds" })((it) => {
    it.effect("finds espeak-ng speech after silence at 8 kHz and 16 kHz, within 100 ms of where it begins", () =>
      Effect.gen(function*() {
        const silero = yield* VoiceActivity
        expect(silero.name).toBe("silero")
        for (const rate of [8000, 16000]) {
          const words = yield* speech("Hello, this is a call about your appointment tomorrow morning.", rate)
          const silence = new Int16Array(rate) // one second
          const result = yield* answers(silero, concat(silence, words, silence), rate)
          // Nothing in the leading second of silence.
          expect(result.slice(0, 50).some(Boolean)).toBe(false)
          // Voice found within 100 ms (5 frames) of the words' start (espeak-ng starts almost at once).
          expect(result.slice(50, 55).some(Boolean)).toBe(true)
          // Most of the speech is voice, and the trailing second's last half is silence again.
          expect(share(result.slice(50, 50 + Math.floor((words.length * 50) / rate)))).toBeGreaterThan(0.6)
          expect(result.slice(-25).some(Boolean)).toBe(false)
        }
      }))

    it.effect("loud noise is not speech: the energy detector hears a caller, Silero does not (no false barge-in)", () =>
      Effect.gen(function*() {
        const silero = yield* VoiceActivity
        const rate = 8000
        const hiss = concat(new Int16Array(rate / 2), noise(rate * 3, -20))
        const byEnergy = yield* answers(energy(), hiss, rate)
        const bySilero = yield* answers(silero, hiss, rate)
        expect(share(byEnergy.slice(25))).toBeGreaterThan(0.9)
        expect(share(bySilero.slice(25))).toBeLessThan(0.1)
      }))

    it.effect("speech over background noise is still speech", () =>
      Effect.gen(function*() {
        const silero = yield* VoiceActivity
        const rate = 16000
        const words = yield* speech("Yes, that time works for me, thank you.", rate)
        const hiss = noise(words.length, -40, 3)
        const mixed = Int16Array.from(words, (s, i) => Math.max(-32768, Math.min(32767, s + hiss[i]!)))
        const result = yield* answers(silero, concat(noise(rate, -40, 5), mixed), rate)
        expect(share(result.slice(50))).toBeGreaterThan(0.5)
      }))

    it.effect("the frame length does not change the answers: windows, not frames, are scored", () =>
      Effect.gen(function*() {
        const silero = yield* VoiceActivity
        const rate = 8000
        const audio = concat(new Int16Array(rate / 2), yield* speech("One two three four five.", rate), new Int16Array(rate / 2))
        const by20 = yield* answers(silero, audio, rate, 20)
        const by10 = yield* answers(silero, audio, rate, 10)
        // The same window decisions, seen every 10 ms instead of every 20 ms.
        const resampled = by10.filter((_, i) => i % 2 === 1)
        expect(resampled.length).toBe(by20.length)
        expect(resampled.filter((v, i) => v !== by20[i]).length).toBe(0)
      }))

    it.effect("calls at a rate the model does not take (24 kHz) are resampled to 16 kHz", () =>
      Effect.gen(function*() {
        const silero = yield* VoiceActivity
        const words = yield* speech("Good afternoon, how are you today?", 24000)
        const result = yield* answers(silero, concat(new Int16Array(24000 / 2), words), 24000)
        expect(result.slice(0, 25).some(Boolean)).toBe(false)
        expect(share(result.slice(25))).toBeGreaterThan(0.6)
      }))

    it.effect("digital silence is never voice", () =>
      Effect.gen(function*() {
        const silero = yield* VoiceActivity
        const result = yield* answers(silero, new Int16Array(8000 * 2), 8000)
        expect(result.every((v) => !v)).toBe(true)
      }))
  })

  it.effect("a model that cannot be loaded fails the layer with a SileroError that names the file", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.scoped(SileroVoiceActivity.make({ modelPath: "/nonexistent/silero.onnx" })))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(String(exit.cause)).toContain("/nonexistent/silero.onnx")
    }))
})
