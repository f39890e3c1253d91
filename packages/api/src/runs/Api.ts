import { NotFoundResponse } from "../Errors.js"
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
