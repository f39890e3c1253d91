import { BadRequestResponse, ConflictResponse, NotFoundResponse } from "../Errors.js"
import { Campaign, CampaignList, CreateCampaignRequest, RedialRequest, UpdateCampaignRequest } from "./Campaign.js"
import { RunsPage } from "../runs/Run.js"
import { CampaignProgress, CampaignSourceDownload } from "./CampaignReports.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { CampaignId } from "../Ids.js"
import { idFromString, PageParams } from "../Params.js"

const CampaignPath = Schema.Struct({ campaign_id: idFromString(CampaignId) })

const action = <const Name extends string>(name: Name) =>
  HttpApiEndpoint.post(name, `/campaign/:campaign_id/${name}`).setPath(CampaignPath).addSuccess(Campaign).addError(NotFoundResponse).addError(ConflictResponse)

export class CampaignsApi extends HttpApiGroup.make("campaigns").annotate(OpenApi.Description, "Campaigns: an agent calling a list of contacts")
  .add(HttpApiEndpoint.post("create", "/campaign/create").annotate(OpenApi.Summary, "Create a campaign").addError(BadRequestResponse).addError(NotFoundResponse).addError(ConflictResponse).setPayload(CreateCampaignRequest).addSuccess(Campaign))
  .add(HttpApiEndpoint.get("list", "/campaign/").annotate(OpenApi.Summary, "List campaigns").setUrlParams(PageParams).addSuccess(CampaignList))
  .add(HttpApiEndpoint.get("get", "/campaign/:campaign_id").annotate(OpenApi.Summary, "Get a campaign").addError(NotFoundResponse).setPath(CampaignPath).addSuccess(Campaign))
  .add(HttpApiEndpoint.patch("update", "/campaign/:campaign_id").annotate(OpenApi.Summary, "Update a draft or paused campaign").addError(NotFoundResponse).addError(ConflictResponse).setPath(CampaignPath).setPayload(UpdateCampaignRequest).addSuccess(Campaign))
  .add(action("start").annotate(OpenApi.Summary, "Start a campaign"))
  .add(action("pause").annotate(OpenApi.Summary, "Pause a running campaign"))
  .add(action("resume").annotate(OpenApi.Summary, "Resume a paused campaign"))
  .add(action("cancel").annotate(OpenApi.Summary, "Cancel a campaign"))
  .add(HttpApiEndpoint.get("runs", "/campaign/:campaign_id/runs").annotate(OpenApi.Summary, "List a campaign's runs").addError(NotFoundResponse).setPath(CampaignPath).setUrlParams(PageParams).addSuccess(RunsPage))
  .add(HttpApiEndpoint.post("redial", "/campaign/:campaign_id/redial").annotate(OpenApi.Summary, "Redial a campaign's unanswered contacts").addError(BadRequestResponse).addError(NotFoundResponse).addError(ConflictResponse).setPath(CampaignPath).setPayload(RedialRequest).addSuccess(Campaign))
  .add(
    HttpApiEndpoint.get("progress", "/campaign/:campaign_id/progress").annotate(OpenApi.Summary, "Get a campaign's progress")
      .addError(NotFoundResponse).setPath(CampaignPath).addSuccess(CampaignProgress)
  )
  .add(
    HttpApiEndpoint.get("report", "/campaign/:campaign_id/report").annotate(OpenApi.Summary, "Download a campaign's report as CSV")
      .annotate(
        OpenApi.Description,
        "One line per contact, in the file's order: its state, last outcome, attempts, and its last call's run (disposition, " +
          "duration, cost, gathered context as JSON), streamed."
      )
      .addError(NotFoundResponse).setPath(CampaignPath).addSuccess(HttpApiSchema.Text({ contentType: "text/csv" }))
  )
  .add(
    HttpApiEndpoint.get("sourceDownloadUrl", "/campaign/:campaign_id/source-download-url")
      .annotate(OpenApi.Summary, "Get a signed link to a campaign's contacts file")
      .addError(NotFoundResponse).addError(BadRequestResponse).setPath(CampaignPath).addSuccess(CampaignSourceDownload)
  )
  .middleware(Authentication)
{}

/** A campaign's contacts file behind its signed link: no API key, the link is the credential. */
export class PublicCampaignSourceApi extends HttpApiGroup.make("publicCampaignSource")
  .annotate(OpenApi.Description, "A campaign's contacts file by signed public link")
  .add(
    HttpApiEndpoint.get("download", "/public/download/campaign-source/:token")
      .annotate(OpenApi.Summary, "Download a campaign's contacts file by signed link")
      .setPath(Schema.Struct({ token: Schema.String }))
      .addError(NotFoundResponse)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/csv" }))
  )
{}
