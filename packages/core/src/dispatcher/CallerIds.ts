/**
 * Which caller id an outbound call shows: the configuration's default, or its numbers in turn.
 */
import { Effect } from "effect"
import type { OutboundRoute } from "../telephony/OutboundRouting.js"

export class CallerIds extends Effect.Service<CallerIds>()("@agentline/core/dispatcher/CallerIds", {
  sync: () => {
    const turns = new Map<number, number>()
    return {
      next: (route: OutboundRoute): string | null => {
        if (route.defaultCallerId !== null) return route.defaultCallerId
        if (route.callerIds.length === 0) return null
        const turn = turns.get(route.configurationId) ?? 0
        turns.set(route.configurationId, turn + 1)
        return route.callerIds[turn % route.callerIds.length]!
      }
    } as const
  }
}) {}
