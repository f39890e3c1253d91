/**
 * Campaign state changes with their events: `CampaignsRepo.transition` (the one writer of campaign
 * state) and the webhook events it causes, in one transaction, so an event is stored exactly when its
 * change is. The API and the dispatcher change campaign state only through here.
 */
import { OrganizationId } from "@agentline/api/Ids"
import { Effect, Option } from "effect"
import { Transactor } from "../Transactor.js"
import { campaignCompletedData, campaignStateChangedData } from "../webhooks/WebhookEvents.js"
import { WebhookOutbox } from "../webhooks/WebhookOutbox.js"
import { CampaignsRepo } from "./CampaignsRepo.js"

export type TransitionInput = Parameters<CampaignsRepo["Type"]["transition"]>[0]

export class CampaignTransitions extends Effect.Service<CampaignTransitions>()("@agentline/core/CampaignTransitions", {
  effect: Effect.gen(function*() {
    const repo = yield* CampaignsRepo
    const tx = yield* Transactor
    const outbox = yield* WebhookOutbox

    /** As `CampaignsRepo.transition`, reporting the change to the organization's webhooks. */
    const apply = (input: TransitionInput) =>
      tx.withTransaction(Effect.gen(function*() {
        const moved = yield* repo.transition(input)
        if (Option.isNone(moved)) return moved
        const campaign = moved.value
        const organizationId = OrganizationId.make(campaign.organization_id)
        const orderingKey = `campaign:${campaign.id}`
        yield* outbox.emit({
          organizationId,
          type: "campaign.state_changed",
          orderingKey,
          at: input.log.ts,
          data: campaignStateChangedData(campaign, { action: input.action, ...input.log })
        })
        if (campaign.state === "completed") {
          yield* outbox.emit({ organizationId, type: "campaign.completed", orderingKey, at: input.log.ts, data: campaignCompletedData(campaign) })
        }
        return moved
      })).pipe(Effect.withSpan("CampaignTransitions.apply", { attributes: { campaignId: input.campaignId, action: input.action } }))

    return { apply } as const
  })
}) {}
