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
  initialVadState,
  stepEnergy,
  stepTurn,
  type VadEvent,
  type VadSettings,
  type VadState
} from "@agentline/core/audio/VoiceActivity"

// The turn machine lives with the port in core (adapters that find utterances themselves use it too).
export { defaultVadSettings, initialVadState, levelDbfs, stepTurn } from "@agentline/core/audio/VoiceActivity"
export type { VadEvent, VadSettings, VadState } from "@agentline/core/audio/VoiceActivity"

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
