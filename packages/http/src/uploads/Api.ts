import { PresignRequest, PresignResponse, UploadReceipt } from "@agentline/core/uploads/Upload"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"

export class UploadsApi extends HttpApiGroup.make("uploads")
  .add(HttpApiEndpoint.post("presign", "/storage/presigned-upload-url").setPayload(PresignRequest).addSuccess(PresignResponse))
  // The reference implementation's real path, kept so its clients keep working.
  .add(HttpApiEndpoint.post("presignS3", "/s3/presigned-upload-url").setPayload(PresignRequest).addSuccess(PresignResponse))
  .middleware(Authentication)
{}

/** The presigned PUT: the URL's signature is the credential, so no API key. */
export class UploadTargetApi extends HttpApiGroup.make("uploadTarget")
  .add(
    HttpApiEndpoint.put("upload", "/storage/upload/:organization/contacts/:file")
      .setPath(Schema.Struct({ organization: Schema.String, file: Schema.String }))
      .setUrlParams(Schema.Struct({ expires: Schema.String, signature: Schema.String }))
      .setPayload(HttpApiSchema.Text({ contentType: "text/csv" }))
      .addSuccess(UploadReceipt)
  )
{}
