import { Campaign, CampaignList, CreateCampaignRequest, RedialRequest, UpdateCampaignRequest } from "./Campaign.js"
import { RunsPage } from "../runs/Run.js"
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { CampaignId } from "../Ids.js"
import { idFromString, PageParams } from "../Params.js"

const CampaignPath = Schema.Struct({ campaign_id: idFromString(CampaignId) })

const action = <const Name extends string>(name: Name) =>
  HttpApiEndpoint.post(name, `/campaign/:campaign_id/${name}`).setPath(CampaignPath).addSuccess(Campaign)

export class CampaignsApi extends HttpApiGroup.make("campaigns")
  .add(HttpApiEndpoint.post("create", "/campaign/create").setPayload(CreateCampaignRequest).addSuccess(Campaign))
  .add(HttpApiEndpoint.get("list", "/campaign/").setUrlParams(PageParams).addSuccess(CampaignList))
  .add(HttpApiEndpoint.get("get", "/campaign/:campaign_id").setPath(CampaignPath).addSuccess(Campaign))
  .add(HttpApiEndpoint.patch("update", "/campaign/:campaign_id").setPath(CampaignPath).setPayload(UpdateCampaignRequest).addSuccess(Campaign))
  .add(action("start"))
  .add(action("pause"))
  .add(action("resume"))
  .add(action("cancel"))
  .add(HttpApiEndpoint.get("runs", "/campaign/:campaign_id/runs").setPath(CampaignPath).setUrlParams(PageParams).addSuccess(RunsPage))
  .add(HttpApiEndpoint.post("redial", "/campaign/:campaign_id/redial").setPath(CampaignPath).setPayload(RedialRequest).addSuccess(Campaign))
  .middleware(Authentication)
{}
