import { Artifact } from "./Run.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** Signed, expiring links to run artifacts: no API key, the link is the credential. */
export class PublicDownloadsApi extends HttpApiGroup.make("publicDownloads")
  .add(
    HttpApiEndpoint.get("download", "/public/download/workflow/:token/:artifact")
      .setPath(Schema.Struct({ token: Schema.String, artifact: Artifact }))
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" }))
  )
{}
