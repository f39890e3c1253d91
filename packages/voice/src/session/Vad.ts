/**
 * Turn-taking on the caller's audio: a voice detector's yes/no per frame (`VoiceActivity`, energy or
 * Silero) becomes "speech started" (after `startMillis` of steady voice, so clicks and breaths are not
 * barge-in) and "speech stopped" (after `stopMillis` of silence: endpointing). Pure: the session feeds
 * frames and acts on the events.
 */
import {
  defaultEnergySettings,
  type EnergySettings,
  type EnergyState,
  initialEnergyState,
  stepEnergy
} from "@agentline/core/voice/VoiceActivity"

export { levelDbfs } from "@agentline/core/voice/VoiceActivity"

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

/** The turn machine over the energy detector, in one state: what the scripted recognizer uses. */
export interface EnergyVadState extends VadState {
  readonly energy: EnergyState
}

export const initialEnergyVadState: EnergyVadState = { ...initialVadState, energy: initialEnergyState }

/** One frame through the energy detector and the turn machine. */
export const stepVad = (
  settings: VadSettings & Partial<EnergySettings>,
  state: EnergyVadState,
  frame: { readonly samples: Int16Array; readonly sampleRate: number }
): readonly [EnergyVadState, ReadonlyArray<VadEvent>] => {
  const [energy, voiced] = stepEnergy({ ...defaultEnergySettings, ...settings }, state.energy, frame.samples)
  const [next, events] = stepTurn(settings, state, (frame.samples.length * 1000) / frame.sampleRate, voiced)
  return [{ ...next, energy }, events]
}
