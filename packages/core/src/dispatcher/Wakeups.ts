/**
 * Wake-ups of campaign loops. A loop sleeps until something it waits for happens in this process (a
 * call of its organization ended, the campaign was paused or resumed); the signal is a sliding queue
 * of one, so any number of wake-ups while the loop is busy make one more pass, not many.
 */
import type { CampaignId, OrganizationId } from "@agentline/api/Ids"
import { Effect, Queue } from "effect"

interface Subscription {
  readonly organizationId: OrganizationId
  readonly queue: Queue.Queue<void>
}

export class Wakeups extends Effect.Service<Wakeups>()("@agentline/core/dispatcher/Wakeups", {
  sync: () => {
    const loops = new Map<CampaignId, Subscription>()

    /** The campaign loop's signal while the surrounding scope lasts. */
    const subscribe = (campaignId: CampaignId, organizationId: OrganizationId) =>
      Effect.acquireRelease(
        Effect.tap(Queue.sliding<void>(1), (queue) => Effect.sync(() => loops.set(campaignId, { organizationId, queue }))),
        (queue) => Effect.sync(() => loops.get(campaignId)?.queue === queue && loops.delete(campaignId))
      )

    /** Every loop of the organization (a slot it shares was freed). */
    const wakeOrganization = (organizationId: OrganizationId) =>
      Effect.forEach(
        [...loops.values()].filter((loop) => loop.organizationId === organizationId),
        (loop) => Queue.offer(loop.queue, undefined),
        { discard: true }
      )

    const wakeCampaign = (campaignId: CampaignId) =>
      Effect.suspend(() => {
        const loop = loops.get(campaignId)
        return loop ? Queue.offer(loop.queue, undefined) : Effect.void
      })

    return { subscribe, wakeOrganization, wakeCampaign } as const
  }
}) {}
