/**
 * What the campaign service tells whoever dials campaigns (the dispatcher implements it): a campaign's
 * state changed through the API. Defined here so that campaigns depend on no dialing code; the
 * dispatcher depends on campaigns, never the other way round.
 */
import type { CampaignId } from "@agentline/api/Ids"
import { Context, type Effect } from "effect"
import type { CampaignState } from "@agentline/api/campaigns/Campaign"

export class CampaignDialer extends Context.Tag("@agentline/core/CampaignDialer")<
  CampaignDialer,
  {
    /** A running campaign is dialed at once (not at the next lease tick); any other stops being dialed. */
    readonly stateChanged: (campaign: { readonly id: CampaignId; readonly state: CampaignState }) => Effect.Effect<void>
  }
>() {}
