/**
 * When the dispatcher stops waiting for an attempt's own events and asks the provider instead: pure
 * rules, tested on their own.
 */

/** The agent's `workflow_configurations.max_call_duration` default and cap, seconds (the reference's). */
export const DEFAULT_MAX_CALL_SECONDS = 300
export const MAX_CALL_SECONDS_CAP = 1200

/** The longest call the agent's configurations allow: `max_call_duration` when valid, else the default. */
export const maxCallSeconds = (configurations: unknown): number => {
  const value = typeof configurations === "object" && configurations !== null
    ? (configurations as Record<string, unknown>).max_call_duration
    : undefined
  return typeof value === "number" && Number.isFinite(value) && value > 0
    ? Math.min(value, MAX_CALL_SECONDS_CAP)
    : DEFAULT_MAX_CALL_SECONDS
}

/** A claim not handed to the provider by then is taken for lost (placing takes milliseconds). */
export const claimDeadline = (now: number, marginSeconds: number): number => now + marginSeconds * 1000

/** A call placed at `now` should have ended by then: ringing and talking fit in the longest call plus the margin. */
export const callDeadline = (now: number, configurations: unknown, marginSeconds: number): number =>
  now + (maxCallSeconds(configurations) + marginSeconds) * 1000
