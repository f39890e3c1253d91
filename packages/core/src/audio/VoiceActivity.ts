/**
 * The voice activity port: whether the caller's audio is speech, frame by frame. The voice runtime
 * builds turn-taking and barge-in on it (`@agentline/voice`'s `Vad.ts` turns these yes/no answers into
 * "speech started" and "speech stopped" with its start and stop times).
 *
 * Two implementations: the energy detector here (the level against the line's own noise floor; no
 * model, no native code, and what an embedding application gets when it provides nothing) and Silero
 * (`@agentline/voice-silero`, a neural network through onnxruntime, which tells speech from other loud
 * sound and is the standalone server's default).
 */
import { Context, Effect } from "effect"
import type { Scope } from "effect"

/** One call's detector, fed that call's audio in order. */
export interface VoiceDetector {
  /**
   * Whether this frame (PCM16 mono at the detector's sample rate, any length) is voice. A detector that
   * works in windows of its own answers for the latest complete window.
   */
  readonly isVoice: (samples: Int16Array) => Effect.Effect<boolean>
}

export interface VoiceActivityService {
  /** What detects: `energy`, `silero`; recorded in the run's logs. */
  readonly name: string
  /** A detector for one call's audio at `sampleRate`; what it holds is released with the scope. */
  readonly detector: (sampleRate: number) => Effect.Effect<VoiceDetector, never, Scope.Scope>
}

export interface EnergySettings {
  /** How far above the noise floor a frame must be to be voice, in dB. */
  readonly marginDb: number
  /** Frames quieter than this are never voice, however quiet the line (dBFS). */
  readonly minLevelDbfs: number
}

export const defaultEnergySettings: EnergySettings = { marginDb: 12, minLevelDbfs: -45 }

/** The energy detector's memory: the line's noise floor. */
export interface EnergyState {
  readonly noiseFloorDbfs: number
}

export const initialEnergyState: EnergyState = { noiseFloorDbfs: -60 }

/** The frame's RMS level in dBFS (-100 for digital silence). */
export const levelDbfs = (samples: Int16Array): number => {
  if (samples.length === 0) return -100
  let sum = 0
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!
  const rms = Math.sqrt(sum / samples.length) / 32768
  return rms <= 0 ? -100 : Math.max(-100, 20 * Math.log10(rms))
}

/**
 * One frame through the energy detector. On a phone line (8 kHz G.711, one speaker) the level against
 * the line's noise floor separates speech from silence well and costs nothing; it cannot tell speech
 * from other loud sound (a TV, a door).
 */
export const stepEnergy = (
  settings: EnergySettings,
  state: EnergyState,
  samples: Int16Array
): readonly [EnergyState, boolean] => {
  const level = levelDbfs(samples)
  const voiced = level >= Math.max(settings.minLevelDbfs, state.noiseFloorDbfs + settings.marginDb)
  // The floor follows quiet frames quickly down and slowly up, so speech never raises it much.
  const noiseFloorDbfs = voiced
    ? state.noiseFloorDbfs
    : level < state.noiseFloorDbfs
    ? state.noiseFloorDbfs + (level - state.noiseFloorDbfs) * 0.5
    : state.noiseFloorDbfs + (level - state.noiseFloorDbfs) * 0.02
  return [{ noiseFloorDbfs }, voiced]
}

/** The energy detector as the port. */
export const energy = (settings: EnergySettings = defaultEnergySettings): VoiceActivityService => ({
  name: "energy",
  detector: () =>
    Effect.sync(() => {
      let state = initialEnergyState
      return {
        isVoice: (samples) =>
          Effect.sync(() => {
            const [next, voiced] = stepEnergy(settings, state, samples)
            state = next
            return voiced
          })
      }
    })
})

/**
 * Turn-taking on a detector's yes/no per frame: "speech started" after `startMillis` of steady voice
 * (clicks and breaths are not barge-in), "speech stopped" after `stopMillis` of silence (endpointing).
 */
export interface VadSettings {
  /** Voice needed before speech counts as started (barge-in and turn start). */
  readonly startMillis: number
  /** Silence after speech before the caller's turn counts as over (endpointing). */
  readonly stopMillis: number
}

export const defaultVadSettings: VadSettings = { startMillis: 80, stopMillis: 800 }

export interface VadState {
  readonly speaking: boolean
  /** Consecutive voiced time, while not yet speaking. */
  readonly voicedMs: number
  /** Consecutive silent time, while speaking. */
  readonly silentMs: number
  /** Audio seen so far. */
  readonly atMs: number
}

export const initialVadState: VadState = { speaking: false, voicedMs: 0, silentMs: 0, atMs: 0 }

export type VadEvent =
  /** `atMs`: where the voice began (the start of the run of voiced frames). */
  | { readonly _tag: "SpeechStarted"; readonly atMs: number }
  /** `atMs`: the end of the last voiced frame; the decision comes `stopMillis` later. */
  | { readonly _tag: "SpeechStopped"; readonly atMs: number }

/** One frame of `frameMs` that the detector found `voiced` (or not): the new state and what changed. */
export const stepTurn = (
  settings: VadSettings,
  state: VadState,
  frameMs: number,
  voiced: boolean
): readonly [VadState, ReadonlyArray<VadEvent>] => {
  const atMs = state.atMs + frameMs
  if (!state.speaking) {
    const voicedMs = voiced ? state.voicedMs + frameMs : 0
    if (voicedMs >= settings.startMillis) {
      return [{ speaking: true, voicedMs: 0, silentMs: 0, atMs }, [{ _tag: "SpeechStarted", atMs: atMs - voicedMs }]]
    }
    return [{ ...state, voicedMs, atMs }, []]
  }
  const silentMs = voiced ? 0 : state.silentMs + frameMs
  if (silentMs >= settings.stopMillis) {
    return [{ speaking: false, voicedMs: 0, silentMs: 0, atMs }, [{ _tag: "SpeechStopped", atMs: atMs - silentMs }]]
  }
  return [{ ...state, silentMs, atMs }, []]
}

/**
 * The detector the voice runtime uses; the energy detector unless a layer provides another (the
 * standalone server provides the one `AGENTLINE_VAD` names, Silero by default).
 */
export class VoiceActivity extends Context.Reference<VoiceActivity>()("@agentline/core/voice/VoiceActivity", {
  defaultValue: (): VoiceActivityService => energy()
}) {}
