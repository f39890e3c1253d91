/**
 * Wake-ups of campaign loops. A loop sleeps until something it waits for happens in this process (a
 * call ended that frees a slot it can use, the campaign was paused or resumed); the signal is a sliding
 * queue of one, so any number of wake-ups while the loop is busy make one more pass, not many.
 *
 * A loop at its campaign's own limit waits for a call of its campaign; one held back by the
 * organization's limit waits for any call of the organization. Waking every loop of an organization
 * on every call end made each of them run a claim (and take the organization's lock) for nothing.
 */
import type { CampaignId, OrganizationId } from "@agentline/api/Ids"
import { Clock, Effect, Queue } from "effect"

interface Subscription {
  readonly organizationId: OrganizationId
  readonly queue: Queue.Queue<void>
  /** What the loop waits for: a slot of its own campaign, or one of the organization's. */
  waitingFor: "campaign" | "organization"
  /** When the first call end since the loop's last claim freed a slot (the start of a refill). */
  freedAt: number | undefined
}

export class Wakeups extends Effect.Service<Wakeups>()("@agentline/core/dispatcher/Wakeups", {
  sync: () => {
    const loops = new Map<CampaignId, Subscription>()

    /** The campaign loop's signal while the surrounding scope lasts. */
    const subscribe = (campaignId: CampaignId, organizationId: OrganizationId) =>
      Effect.acquireRelease(
        Effect.tap(Queue.sliding<void>(1), (queue) =>
          Effect.sync(() => loops.set(campaignId, { organizationId, queue, waitingFor: "organization", freedAt: undefined }))),
        (queue) => Effect.sync(() => loops.get(campaignId)?.queue === queue && loops.delete(campaignId))
      )

    /** The loop's last claim was held back by its campaign's limit or by the organization's. */
    const waitFor = (campaignId: CampaignId, what: "campaign" | "organization") =>
      Effect.sync(() => {
        const loop = loops.get(campaignId)
        if (loop !== undefined) loop.waitingFor = what
      })

    /** Every loop of the organization (the breaker tripped, limits changed). */
    const wakeOrganization = (organizationId: OrganizationId) =>
      Effect.forEach(
        [...loops.values()].filter((loop) => loop.organizationId === organizationId),
        (loop) => Queue.offer(loop.queue, undefined),
        { discard: true }
      )

    /** A call ended: its campaign's loop, and the loops waiting for an organization slot. */
    const callEnded = (organizationId: OrganizationId, campaignId: CampaignId | null) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.forEach(
          [...loops.entries()].filter(([id, loop]) =>
            id === campaignId || (loop.organizationId === organizationId && loop.waitingFor === "organization")),
          ([, loop]) => {
            loop.freedAt ??= now
            return Queue.offer(loop.queue, undefined)
          },
          { discard: true }
        ))

    /** When the slot the loop's claim refilled was freed (and forgets it); none when no call ended since its last claim. */
    const takeFreedAt = (campaignId: CampaignId) =>
      Effect.sync(() => {
        const loop = loops.get(campaignId)
        const at = loop?.freedAt
        if (loop !== undefined) loop.freedAt = undefined
        return at
      })

    const wakeCampaign = (campaignId: CampaignId) =>
      Effect.suspend(() => {
        const loop = loops.get(campaignId)
        return loop ? Queue.offer(loop.queue, undefined) : Effect.void
      })

    return { subscribe, waitFor, wakeOrganization, callEnded, wakeCampaign, takeFreedAt } as const
  }
}) {}
