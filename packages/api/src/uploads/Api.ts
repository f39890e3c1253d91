import { BadRequestResponse, ConflictResponse, ForbiddenResponse, PayloadTooLargeResponse } from "../Errors.js"
import { PresignRequest, PresignResponse, UploadReceipt } from "./Upload.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"

const presign = <const Name extends string>(name: Name, path: HttpApiEndpoint.PathSegment) =>
  HttpApiEndpoint.post(name, path).addError(PayloadTooLargeResponse)
    .setPayload(PresignRequest)
    .addSuccess(PresignResponse)
    .annotate(
      OpenApi.Description,
      "Step 1 of the contacts upload: reserves a file key of the caller's organization and returns a signed URL " +
        "to PUT the CSV to (header Content-Type: text/csv, the file as the raw body) before it expires. " +
        "The returned file_key is the campaign's source_id."
    )

export class UploadsApi extends HttpApiGroup.make("uploads").annotate(OpenApi.Description, "Reserving file uploads")
  .add(presign("presign", "/storage/presigned-upload-url").annotate(OpenApi.Summary, "Reserve an upload of a contacts CSV"))
  // The reference implementation's real path, kept so its clients keep working.
  .add(presign("presignS3", "/s3/presigned-upload-url").annotate(OpenApi.Summary, "Reserve an upload of a contacts CSV (S3-style path)"))
  .middleware(Authentication)
{}

/**
 * Step 2, the presigned PUT: the URL's signature is the credential, so no API key. `expires` and
 * `signature` are optional in the schema so that a URL missing them gets the same 403 as a wrong one
 * (instead of a 422 that would read the whole body to report it).
 */
export class UploadTargetApi extends HttpApiGroup.make("uploadTarget").annotate(OpenApi.Description, "Signed file uploads")
  .add(
    HttpApiEndpoint.put("upload", "/storage/upload/:organization/contacts/:file").annotate(OpenApi.Summary, "Upload a contacts CSV").addError(BadRequestResponse).addError(ForbiddenResponse).addError(ConflictResponse).addError(PayloadTooLargeResponse)
      .setPath(Schema.Struct({ organization: Schema.String, file: Schema.String }))
      .setUrlParams(Schema.Struct({
        expires: Schema.optionalWith(Schema.String, { default: () => "" }),
        signature: Schema.optionalWith(Schema.String, { default: () => "" })
      }))
      .setPayload(HttpApiSchema.Text({ contentType: "text/csv" }))
      .addSuccess(UploadReceipt)
      .annotate(
        OpenApi.Description,
        "Step 2 of the contacts upload: send the CSV as the raw body to the upload_url returned by step 1, with " +
          "Content-Type: text/csv. At most the declared file_size is accepted (413 beyond it, nothing stored)."
      )
  )
  .add(
    HttpApiEndpoint.put("uploadRecording", "/storage/upload/:organization/recordings/:file").annotate(OpenApi.Summary, "Upload a recording's audio").addError(BadRequestResponse).addError(ForbiddenResponse).addError(ConflictResponse).addError(PayloadTooLargeResponse)
      .setPath(Schema.Struct({ organization: Schema.String, file: Schema.String }))
      .setUrlParams(Schema.Struct({
        expires: Schema.optionalWith(Schema.String, { default: () => "" }),
        signature: Schema.optionalWith(Schema.String, { default: () => "" })
      }))
      .setPayload(HttpApiSchema.Uint8Array({ contentType: "audio/wav" }))
      .addSuccess(UploadReceipt)
      .annotate(
        OpenApi.Description,
        "Step 2 of a recording upload (`POST /workflow-recordings/upload-url`): send the audio file as the raw body " +
          "with the Content-Type declared as its mime_type (audio/wav). At most the declared file_size is accepted."
      )
  )
{}
