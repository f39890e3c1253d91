import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Option, Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { ConflictResponse, NotFoundResponse, PayloadTooLargeResponse, ServiceUnavailableResponse, ValidationErrorResponse } from "../Errors.js"
import { IntFromString, Success } from "../Params.js"
import {
  BatchRecordingCreateRequest,
  BatchRecordingCreateResponse,
  BatchRecordingUploadRequest,
  BatchRecordingUploadResponse,
  MAX_RECORDING_BYTES,
  Recording,
  RecordingList,
  RecordingListParams,
  RecordingUpdateRequest,
  TranscriptionResponse
} from "./Recordings.js"

/** The multipart body of a transcription: the audio file and its language (default `en`). */
export const TranscribeBody = HttpApiSchema.Multipart(
  Schema.Struct({
    file: Multipart.SingleFileSchema,
    language: Schema.optionalWith(Schema.String, { default: () => "en" })
  }),
  { maxFileSize: Option.some(MAX_RECORDING_BYTES), maxParts: Option.some(4) }
)

/**
 * The organization's pre-recorded audio (the reference's `/workflow-recordings`, same paths and
 * shapes): any user of the organization.
 */
export class RecordingsApi extends HttpApiGroup.make("recordings").annotate(OpenApi.Description, "Pre-recorded audio agents play")
  .add(
    HttpApiEndpoint.post("uploadUrls", "/workflow-recordings/upload-url").annotate(OpenApi.Summary, "Request upload URLs for recordings").addError(PayloadTooLargeResponse)
      .setPayload(BatchRecordingUploadRequest)
      .addSuccess(BatchRecordingUploadResponse)
      .annotate(
        OpenApi.Description,
        "Step 1: a signed upload URL per file (each with its new recording_id and storage_key). PUT each file " +
          "as the raw body with header Content-Type: its mime_type (audio/wav) before the URL expires; then step 2."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/workflow-recordings/").annotate(OpenApi.Summary, "Create recordings from uploaded files").addError(ConflictResponse).addError(ValidationErrorResponse)
      .setPayload(BatchRecordingCreateRequest)
      .addSuccess(BatchRecordingCreateResponse)
      .annotate(
        OpenApi.Description,
        "Step 2: the records of uploaded files. Each file is read and must be a WAV file (PCM 8/16/24/32-bit, " +
          "32/64-bit float, G.711 µ-law or A-law; mono or stereo; any sample rate); its duration, sample rate and " +
          "size are stored in metadata. 422 lists every recording at fault."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/workflow-recordings/").annotate(OpenApi.Summary, "List recordings")
      .setUrlParams(RecordingListParams)
      .addSuccess(RecordingList)
  )
  .add(
    HttpApiEndpoint.post("transcribe", "/workflow-recordings/transcribe").annotate(OpenApi.Summary, "Transcribe an audio file").addError(ServiceUnavailableResponse).addError(ValidationErrorResponse)
      .setPayload(TranscribeBody)
      .addSuccess(TranscriptionResponse)
      .annotate(
        OpenApi.Description,
        "The words of an audio file (multipart field `file`, a WAV file of at most 5 MB), by the server's " +
          "speech-to-text service; 503 when the server has none."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/workflow-recordings/:recording_id").annotate(OpenApi.Summary, "Delete a recording").addError(NotFoundResponse)
      .setPath(Schema.Struct({ recording_id: Schema.String }))
      .addSuccess(Success)
  )
  .add(
    HttpApiEndpoint.patch("update", "/workflow-recordings/:id").annotate(OpenApi.Summary, "Update a recording").addError(NotFoundResponse).addError(ConflictResponse)
      .setPath(Schema.Struct({ id: IntFromString }))
      .setPayload(RecordingUpdateRequest)
      .addSuccess(Recording)
  )
  .middleware(Authentication)
{}
