/**
 * The batched path scores each call's windows as the single path does: many streams of real speech,
 * noise and silence run at once through one batcher (several windows per inference), each stream's
 * probabilities and decisions equal to its own windows scored one by one with their own state.
 */
import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import * as Pcm from "@agentline/core/audio/Pcm"
import * as LocalTextToSpeech from "@agentline/voice-local/LocalTextToSpeech"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Effect, FastCheck, Layer, Stream } from "effect"
import ort from "onnxruntime-node"
import * as SileroBatch from "../src/SileroBatch.js"
import * as SileroVoiceActivity from "../src/SileroVoiceActivity.js"

const Tts = LocalTextToSpeech.layer().pipe(Layer.provide(NodeContext.layer))

const speech = (text: string, sampleRate: number) =>
  Effect.gen(function*() {
    const tts = yield* LocalTextToSpeech.LocalTextToSpeech
    const format: AudioFormat = { encoding: "l16le", sampleRate }
    const frames = Chunk.toReadonlyArray(yield* Stream.runCollect(tts.synthesize(text, format)))
    return concat(frames.map((frame) => Pcm.decode(frame).samples))
  })

function concat(parts: ReadonlyArray<Int16Array>) {
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    all.set(p, at)
    at += p.length
  }
  return all
}

const noise = (samples: number, dbfs: number, seed: number) => {
  let x = seed
  const amplitude = 32768 * 10 ** (dbfs / 20) * Math.sqrt(3)
  return Int16Array.from({ length: samples }, () => {
    x = (x * 1103515245 + 12345) % 2147483648
    return Math.round((x / 2147483648 * 2 - 1) * amplitude)
  })
}

/** A stream's audio: pieces of speech, noise and silence, as fast-check draws them. */
type Piece =
  | { readonly _tag: "Speech"; readonly clip: number; readonly from: number }
  | { readonly _tag: "Noise"; readonly ms: number; readonly dbfs: number; readonly seed: number }
  | { readonly _tag: "Silence"; readonly ms: number }

const piece: FastCheck.Arbitrary<Piece> = FastCheck.oneof(
  FastCheck.record({ _tag: FastCheck.constant("Speech" as const), clip: FastCheck.nat(2), from: FastCheck.nat(4000) }),
  FastCheck.record({
    _tag: FastCheck.constant("Noise" as const),
    ms: FastCheck.integer({ min: 20, max: 600 }),
    dbfs: FastCheck.integer({ min: -70, max: -15 }),
    seed: FastCheck.nat(1000)
  }),
  FastCheck.record({ _tag: FastCheck.constant("Silence" as const), ms: FastCheck.integer({ min: 20, max: 400 }) })
)

const audioOf = (pieces: ReadonlyArray<Piece>, clips: ReadonlyArray<Int16Array>, rate: number) =>
  concat(pieces.map((p) =>
    p._tag === "Speech"
      ? clips[p.clip]!.subarray(Math.min(p.from, clips[p.clip]!.length - 1))
      : p._tag === "Noise"
      ? noise((rate * p.ms) / 1000, p.dbfs, p.seed)
      : new Int16Array((rate * p.ms) / 1000)
  ))

const session = Effect.acquireRelease(
  Effect.promise(() =>
    ort.InferenceSession.create(SileroVoiceActivity.bundledModelPath(), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: "sequential",
      graphOptimizationLevel: "all"
    })
  ),
  (s) => Effect.promise(() => s.release())
)

const floats = (samples: Int16Array) => Float32Array.from(samples, (s) => s / 32768)

/** Each window's probability, one inference per window: the single path. */
const singly = (s: ort.InferenceSession, rate: 8000 | 16000, audio: Int16Array, minLevelDbfs: number) =>
  Effect.gen(function*() {
    const scorer = SileroVoiceActivity.makeWindowScorer(s, rate, { ...SileroVoiceActivity.defaultSileroSettings, minLevelDbfs })
    const all = floats(audio)
    const out: Array<number> = []
    for (let at = 0; at + scorer.window <= all.length; at += scorer.window) out.push(yield* scorer.score(all.subarray(at, at + scorer.window)))
    return out
  })

/** The decisions the hysteresis makes on `probabilities`, one per window. */
const decisions = (probabilities: ReadonlyArray<number>) => {
  const { negativeThreshold, threshold } = SileroVoiceActivity.defaultSileroSettings
  let speaking = false
  return probabilities.map((p) => (speaking = speaking ? p >= negativeThreshold : p >= threshold))
}

describe("Silero batched across calls", () => {
  layer(Tts, { timeout: "120 seconds" })((it) => {
    it.effect("the batcher gives each stream the probabilities the single path gives it, with many streams at once", () =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* session
        for (const rate of [8000, 16000] as const) {
          const clips = [
            yield* speech("Tell me more about it, please.", rate),
            yield* speech("Yes, Tuesday at nine works for me.", rate),
            yield* speech("No thank you, goodbye.", rate)
          ]
          const { context, window } = SileroBatch.windowOf(rate)
          yield* Effect.promise(() =>
            FastCheck.assert(
              FastCheck.asyncProperty(
                FastCheck.array(FastCheck.array(piece, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 8 }),
                FastCheck.integer({ min: 1, max: 8 }),
                async (streams, maxBatch) => {
                  const audios = streams.map((pieces) => floats(audioOf(pieces, clips, rate)))
                  const batcher = SileroBatch.makeBatcher(s, rate, maxBatch)
                  // Every stream feeds its windows in order, all streams at once.
                  const batched = await Promise.all(audios.map(async (audio) => {
                    const stream = SileroBatch.makeStream(rate)
                    const out: Array<number> = []
                    for (let at = 0; at + window <= audio.length; at += window) {
                      stream.input.set(audio.subarray(at, at + window), context)
                      out.push(await batcher.score(stream))
                      stream.input.copyWithin(0, window, window + context)
                    }
                    return out
                  }))
                  const expected = await Promise.all(audios.map((audio) =>
                    Effect.runPromise(singly(s, rate, Int16Array.from(audio, (f) => Math.round(f * 32768)), -200))
                  ))
                  for (let i = 0; i < audios.length; i++) {
                    expect(batched[i]!.length).toBe(expected[i]!.length)
                    batched[i]!.forEach((p, w) => expect(Math.abs(p - expected[i]![w]!)).toBeLessThan(1e-4))
                  }
                  // The streams did share inferences (as many as the batch size allowed).
                  const stats = batcher.stats()
                  expect(stats.windows).toBe(expected.reduce((n, e) => n + e.length, 0))
                  if (maxBatch > 1 && audios.filter((a) => a.length >= 2 * window).length >= 2) expect(stats.largest).toBeGreaterThan(1)
                  expect(stats.largest).toBeLessThanOrEqual(maxBatch)
                }
              ),
              { numRuns: 6 }
            )
          )
        }
      })), 180_000)

    it.effect("calls' detectors running at once decide as each call's windows scored alone (quiet windows skipped too)", () =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* session
        const rate = 8000
        const silero = yield* SileroVoiceActivity.make({ maxBatch: 16 })
        const clips = [yield* speech("Hello, this is about your appointment.", rate), yield* speech("Could you call me back tomorrow?", rate)]
        const calls = Array.from({ length: 24 }, (_, i) =>
          audioOf([
            { _tag: "Silence", ms: 20 * (i % 7) },
            { _tag: "Speech", clip: i % 2, from: 0 },
            { _tag: "Noise", ms: 300, dbfs: i % 3 === 0 ? -30 : -65, seed: i },
            { _tag: "Speech", clip: (i + 1) % 2, from: 160 * i },
            { _tag: "Silence", ms: 400 }
          ], clips, rate))
        const frame = rate / 50
        const answers = yield* Effect.forEach(calls, (audio) =>
          Effect.scoped(Effect.gen(function*() {
            const detector = yield* silero.detector(rate)
            const out: Array<boolean> = []
            for (let at = 0; at + frame <= audio.length; at += frame) out.push(yield* detector.isVoice(audio.subarray(at, at + frame)))
            return out
          })), { concurrency: "unbounded" })
        const { window } = SileroBatch.windowOf(rate)
        for (let c = 0; c < calls.length; c++) {
          const byWindow = decisions(yield* singly(s, rate, calls[c]!, SileroVoiceActivity.defaultSileroSettings.minLevelDbfs))
          // A frame's answer is the latest complete window's decision.
          const expected = answers[c]!.map((_, k) => {
            const complete = Math.floor(((k + 1) * frame) / window)
            return complete === 0 ? false : byWindow[complete - 1]!
          })
          expect(answers[c]).toEqual(expected)
          expect(expected.some(Boolean)).toBe(true)
        }
        const stats = silero.batches()
        expect(stats.largest).toBeGreaterThan(1)
        expect(stats.runs).toBeLessThan(stats.windows)
      })))
  })
})
