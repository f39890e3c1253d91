import { BadRequestResponse, NotFoundResponse } from "../Errors.js"
import { RunFilterParams, RunListParams, RunSearchPage } from "./RunSearch.js"
import { Authentication } from "../Authentication.js"
import { Artifact } from "./Run.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"

/** Signed, expiring links to run artifacts: no API key, the link is the credential. */
export class PublicDownloadsApi extends HttpApiGroup.make("publicDownloads").annotate(OpenApi.Description, "Run recordings and transcripts by signed public link")
  .add(
    HttpApiEndpoint.get("download", "/public/download/workflow/:token/:artifact").annotate(OpenApi.Summary, "Download a run's recording or transcript by signed link").addError(NotFoundResponse)
      .setPath(Schema.Struct({ token: Schema.String, artifact: Artifact }))
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" }))
      .annotate(
        OpenApi.Description,
        "The artifact's bytes (audio/wav or text/plain) with Content-Length and Accept-Ranges: bytes. A Range " +
          "header of one byte range is answered 206 with Content-Range; one past the end 416 with " +
          "Content-Range: bytes */<size>; HEAD gives the headers alone."
      )
  )
{}

/** Runs across the organization (docs/reports.md). */
export class RunsApi extends HttpApiGroup.make("runs")
  .add(
    HttpApiEndpoint.get("list", "/runs")
      .setUrlParams(RunListParams)
      .addSuccess(RunSearchPage)
      .addError(BadRequestResponse)
      .annotate(OpenApi.Summary, "List the organization's runs")
      .annotate(
        OpenApi.Description,
        "Runs of every agent, filtered on the server (agent, campaign, status, disposition, outcome, call type, phone " +
          "number, date range, duration, cost), searched (`q`: every word in the transcript or gathered context), " +
          "sorted and paged by keyset (`next_cursor`)."
      )
  )
  .add(
    HttpApiEndpoint.get("export", "/runs/export")
      .setUrlParams(RunFilterParams)
      .addError(BadRequestResponse)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/csv" }))
      .annotate(OpenApi.Summary, "Export the organization's runs as CSV")
      .annotate(OpenApi.Description, "The same filters and sort as `GET /runs`, every matching run, streamed as CSV.")
  )
  .middleware(Authentication)
{}
