/**
 * Instants as the system stores and shows them: ISO-8601 UTC strings made from Effect's `Clock`
 * millis (so `TestClock` drives every timestamp).
 */
import { Clock, Effect } from "effect"

export const iso = (millis: number): string => new Date(millis).toISOString()

/** The current instant from `Clock`, as ISO-8601 UTC. */
export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, iso)
