/**
 * A call's turn-taking and time limits, from the agent's `workflow_configurations` (the reference's
 * keys; nulls and bad values mean "unset", as in the reference). Pure.
 */
import { defaultVadSettings, type VadSettings } from "./Vad.js"

export interface SessionSettings {
  readonly vad: VadSettings
  readonly idleMillis: number
  readonly maxCallMillis: number
}

/**
 * The reference's `smart_turn_stop_secs` default is 2.0 s because its turn analyzer decides first; our
 * endpointing is the silence itself, so it waits 0.8 s unless the agent says otherwise.
 */
export const DEFAULT_STOP_SECONDS = 0.8
export const DEFAULT_IDLE_SECONDS = 10
export const DEFAULT_MAX_CALL_SECONDS = 300
/** The reference caps `max_call_duration` at 1200 s (a slot's stale timeout). */
export const MAX_CALL_SECONDS_CAP = 1200

const positive = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined

export const sessionSettings = (configurations: Readonly<Record<string, unknown>> | null | undefined): SessionSettings => {
  const c = configurations ?? {}
  const stop = positive(c.smart_turn_stop_secs) ?? DEFAULT_STOP_SECONDS
  return {
    vad: { ...defaultVadSettings, stopMillis: Math.round(stop * 1000) },
    idleMillis: Math.round((positive(c.max_user_idle_timeout) ?? DEFAULT_IDLE_SECONDS) * 1000),
    maxCallMillis: Math.round(Math.min(positive(c.max_call_duration) ?? DEFAULT_MAX_CALL_SECONDS, MAX_CALL_SECONDS_CAP) * 1000)
  }
}
