/**
 * Voice activity detection and endpointing on the caller's audio: an energy detector with an adaptive
 * noise floor, frame by frame. Pure: the session feeds it PCM frames and acts on the events.
 *
 * Why energy and not Silero: on a phone line (8 kHz G.711, one speaker, no music) the level against
 * the line's own noise floor separates speech from silence well, costs nothing per frame, and needs no
 * model file or native runtime. What it cannot do is tell speech from other loud sound (a TV, a
 * door); docs/voice.md says so. `startMillis` of steady voice before a start keeps clicks and
 * breaths from counting as barge-in.
 */

export interface VadSettings {
  /** Voice needed before speech counts as started (barge-in and turn start). */
  readonly startMillis: number
  /** Silence after speech before the caller's turn counts as over (endpointing). */
  readonly stopMillis: number
  /** How far above the noise floor a frame must be to be voice, in dB. */
  readonly marginDb: number
  /** Frames quieter than this are never voice, however quiet the line (dBFS). */
  readonly minLevelDbfs: number
}

export const defaultVadSettings: VadSettings = { startMillis: 80, stopMillis: 800, marginDb: 12, minLevelDbfs: -45 }

export interface VadState {
  readonly speaking: boolean
  /** Consecutive voiced time, while not yet speaking. */
  readonly voicedMs: number
  /** Consecutive silent time, while speaking. */
  readonly silentMs: number
  readonly noiseFloorDbfs: number
  /** Audio seen so far. */
  readonly atMs: number
}

export const initialVadState: VadState = { speaking: false, voicedMs: 0, silentMs: 0, noiseFloorDbfs: -60, atMs: 0 }

export type VadEvent =
  /** `atMs`: where the voice began (the start of the run of voiced frames). */
  | { readonly _tag: "SpeechStarted"; readonly atMs: number }
  /** `atMs`: the end of the last voiced frame; the decision comes `stopMillis` later. */
  | { readonly _tag: "SpeechStopped"; readonly atMs: number }

/** The frame's RMS level in dBFS (-100 for digital silence). */
export const levelDbfs = (samples: Int16Array): number => {
  if (samples.length === 0) return -100
  let sum = 0
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!
  const rms = Math.sqrt(sum / samples.length) / 32768
  return rms <= 0 ? -100 : Math.max(-100, 20 * Math.log10(rms))
}

/** One frame of audio: the new state and what changed. */
export const stepVad = (
  settings: VadSettings,
  state: VadState,
  frame: { readonly samples: Int16Array; readonly sampleRate: number }
): readonly [VadState, ReadonlyArray<VadEvent>] => {
  const ms = (frame.samples.length * 1000) / frame.sampleRate
  const level = levelDbfs(frame.samples)
  const voiced = level >= Math.max(settings.minLevelDbfs, state.noiseFloorDbfs + settings.marginDb)
  const atMs = state.atMs + ms
  // The floor follows quiet frames quickly down and slowly up, so speech never raises it much.
  const noiseFloorDbfs = voiced
    ? state.noiseFloorDbfs
    : level < state.noiseFloorDbfs
    ? state.noiseFloorDbfs + (level - state.noiseFloorDbfs) * 0.5
    : state.noiseFloorDbfs + (level - state.noiseFloorDbfs) * 0.02
  if (!state.speaking) {
    const voicedMs = voiced ? state.voicedMs + ms : 0
    if (voicedMs >= settings.startMillis) {
      return [{ speaking: true, voicedMs: 0, silentMs: 0, noiseFloorDbfs, atMs }, [{ _tag: "SpeechStarted", atMs: atMs - voicedMs }]]
    }
    return [{ ...state, voicedMs, noiseFloorDbfs, atMs }, []]
  }
  const silentMs = voiced ? 0 : state.silentMs + ms
  if (silentMs >= settings.stopMillis) {
    return [{ speaking: false, voicedMs: 0, silentMs: 0, noiseFloorDbfs, atMs }, [{ _tag: "SpeechStopped", atMs: atMs - silentMs }]]
  }
  return [{ ...state, silentMs, noiseFloorDbfs, atMs }, []]
}
