/**
 * Pre-recorded audio for agents (the reference's `/workflow-recordings`), in its wire shapes: a greeting
 * or transition speech an agent plays instead of synthesized speech. Uploaded in two steps like the
 * contacts file (signed upload URLs, then the records), listed, renamed, deleted; `transcript` is
 * what the recording says (the transcript of a call that plays it shows these words).
 */
import { Schema } from "effect"
import { IntFromString } from "../Params.js"

/** The reference's limit on one recording file: 5 MiB. */
export const MAX_RECORDING_BYTES = 5 * 1024 * 1024

/** At most this many files in one batch (upload URLs or records). */
export const MAX_BATCH = 20

/** The short name a definition refers to a recording by (`greeting_recording_id`, `transition_speech_recording_id`). */
export const RecordingName = Schema.String.pipe(
  Schema.minLength(1, { message: () => "recording_id must be 1 to 64 characters" }),
  Schema.maxLength(64, { message: () => "recording_id must be 1 to 64 characters" }),
  Schema.pattern(/^[a-zA-Z0-9_-]+$/, { message: () => "recording_id may contain only letters, digits, hyphens and underscores" })
)

export const FileDescriptor = Schema.Struct({
  filename: Schema.String.pipe(
    Schema.minLength(1, { message: () => "filename must be 1 to 255 characters" }),
    Schema.maxLength(255, { message: () => "filename must be 1 to 255 characters" })
  ),
  mime_type: Schema.optionalWith(
    Schema.String.pipe(Schema.pattern(/^audio\/[A-Za-z0-9.+-]+$/i, { message: () => "mime_type must be an audio type, e.g. audio/wav" })),
    { default: () => "audio/wav" }
  ),
  file_size: Schema.Int.pipe(
    Schema.greaterThan(0, { message: () => "file_size must be a positive number of bytes" }),
    Schema.lessThanOrEqualTo(MAX_RECORDING_BYTES, { message: () => `file_size must be at most ${MAX_RECORDING_BYTES} bytes (5 MB)` })
  )
}).annotations({ identifier: "FileDescriptor" })

export const BatchRecordingUploadRequest = Schema.Struct({
  files: Schema.Array(FileDescriptor).pipe(
    Schema.minItems(1, { message: () => `files must list 1 to ${MAX_BATCH} files` }),
    Schema.maxItems(MAX_BATCH, { message: () => `files must list 1 to ${MAX_BATCH} files` })
  )
}).annotations({ identifier: "BatchRecordingUploadRequestSchema" })
export type BatchRecordingUploadRequest = typeof BatchRecordingUploadRequest.Type

export const RecordingUploadResponse = Schema.Struct({
  /** A signed URL of this server: PUT the file to it (header Content-Type: the declared mime_type) before it expires. */
  upload_url: Schema.String,
  recording_id: Schema.String,
  storage_key: Schema.String
}).annotations({ identifier: "RecordingUploadResponseSchema" })

export const BatchRecordingUploadResponse = Schema.Struct({
  items: Schema.Array(RecordingUploadResponse)
}).annotations({ identifier: "BatchRecordingUploadResponseSchema" })
export type BatchRecordingUploadResponse = typeof BatchRecordingUploadResponse.Type

const OptionalText = Schema.optionalWith(Schema.NullOr(Schema.String.pipe(Schema.maxLength(255))), { default: () => null })
const Metadata = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const RecordingCreateRequest = Schema.Struct({
  recording_id: Schema.String,
  tts_provider: OptionalText,
  tts_model: OptionalText,
  tts_voice_id: OptionalText,
  transcript: Schema.String.pipe(Schema.maxLength(10_000, { message: () => "transcript must be at most 10000 characters" })),
  storage_key: Schema.String,
  metadata: Schema.optionalWith(Schema.NullOr(Metadata), { default: () => null }),
  /** Not in the reference's request: the agent the recording was made for (the list's `workflow_id` filter). */
  workflow_id: Schema.optionalWith(Schema.NullOr(Schema.Int.pipe(Schema.between(1, 2_147_483_647, { message: () => "workflow_id must be a workflow id" }))), { default: () => null })
}).annotations({ identifier: "RecordingCreateRequestSchema" })
export type RecordingCreateRequest = typeof RecordingCreateRequest.Type

export const BatchRecordingCreateRequest = Schema.Struct({
  recordings: Schema.Array(RecordingCreateRequest).pipe(
    Schema.minItems(1, { message: () => `recordings must list 1 to ${MAX_BATCH} recordings` }),
    Schema.maxItems(MAX_BATCH, { message: () => `recordings must list 1 to ${MAX_BATCH} recordings` })
  )
}).annotations({ identifier: "BatchRecordingCreateRequestSchema" })
export type BatchRecordingCreateRequest = typeof BatchRecordingCreateRequest.Type

export const Recording = Schema.Struct({
  id: Schema.Int,
  recording_id: Schema.String,
  workflow_id: Schema.NullOr(Schema.Int),
  organization_id: Schema.Int,
  tts_provider: Schema.NullOr(Schema.String),
  tts_model: Schema.NullOr(Schema.String),
  tts_voice_id: Schema.NullOr(Schema.String),
  transcript: Schema.String,
  storage_key: Schema.String,
  storage_backend: Schema.String,
  /** The client's metadata with what the server read from the file: format, encoding, sample_rate, channels, bits_per_sample, duration (s), file_size (bytes). */
  metadata: Metadata,
  created_by: Schema.Int,
  created_at: Schema.String,
  is_active: Schema.Boolean
}).annotations({ identifier: "RecordingResponseSchema" })
export type Recording = typeof Recording.Type

export const BatchRecordingCreateResponse = Schema.Struct({
  recordings: Schema.Array(Recording)
}).annotations({ identifier: "BatchRecordingCreateResponseSchema" })

export const RecordingList = Schema.Struct({
  recordings: Schema.Array(Recording),
  total: Schema.Int
}).annotations({ identifier: "RecordingListResponseSchema" })

export const RecordingListParams = Schema.Struct({
  workflow_id: Schema.optional(IntFromString),
  tts_provider: Schema.optional(Schema.String),
  tts_model: Schema.optional(Schema.String),
  tts_voice_id: Schema.optional(Schema.String)
})
export type RecordingListParams = typeof RecordingListParams.Type

/** The reference renames only (`recording_id`); the transcript and voice fields can be corrected too. Absent fields stay. */
export const RecordingUpdateRequest = Schema.Struct({
  recording_id: Schema.optional(RecordingName),
  transcript: Schema.optional(Schema.String.pipe(Schema.maxLength(10_000, { message: () => "transcript must be at most 10000 characters" }))),
  tts_provider: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(255)))),
  tts_model: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(255)))),
  tts_voice_id: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(255))))
}).annotations({ identifier: "RecordingUpdateRequestSchema" })
export type RecordingUpdateRequest = typeof RecordingUpdateRequest.Type

export const TranscriptionResponse = Schema.Struct({
  transcript: Schema.String,
  language: Schema.String,
  /** Seconds of audio in the file. */
  duration: Schema.Number
}).annotations({ identifier: "RecordingTranscriptionResponse" })
export type TranscriptionResponse = typeof TranscriptionResponse.Type
