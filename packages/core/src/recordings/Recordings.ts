/**
 * An organization's pre-recorded audio (the reference's `/workflow-recordings`): upload URLs (the
 * contacts upload's signed, single-use URLs, under `<organization>/recordings/`), records of the
 * uploaded files (each file read and checked to be audio the runtime can play; its duration, rate and
 * size kept in `metadata`), listing, renaming, deleting (soft: runs that played it keep their record),
 * and transcription of an audio file by the server's speech-to-text service.
 */
import type { Principal } from "@agentline/api/Authentication"
import {
  type BatchRecordingCreateRequest,
  type BatchRecordingUploadRequest,
  type BatchRecordingUploadResponse,
  MAX_RECORDING_BYTES,
  type Recording,
  type RecordingListParams,
  type RecordingUpdateRequest,
  type TranscriptionResponse
} from "@agentline/api/recordings/Recordings"
import { Clock, Context, Effect, Either, Layer, Option, Stream } from "effect"
import * as Crypto from "node:crypto"
import * as Pcm from "../audio/Pcm.js"
import { iso } from "../Time.js"
import { isRecordingKeyOf, issuedFor } from "../uploads/Upload.js"
import { Uploads } from "../uploads/Uploads.js"
import type { SpeechToTextService } from "../voice/Speech.js"
import { PlayableRecordings } from "../workflows/PlayableRecordings.js"
import { WorkflowsRepo } from "../workflows/WorkflowsRepo.js"
import { InvalidRecordings, RecordingIdTaken, RecordingNotFound, SpeechToTextUnavailable, UnreadableAudio } from "./Errors.js"
import { type StoredRecording, RecordingsRepo } from "./RecordingsRepo.js"
import { ACCEPTED_FORMATS, decodeWav } from "../audio/WavAudio.js"

/**
 * The speech-to-text service recordings are transcribed with: the server's (`AGENTLINE_STT`), none
 * when the server runs no voice runtime of its own.
 */
export class RecordingSpeechToText extends Context.Tag("@agentline/core/RecordingSpeechToText")<
  RecordingSpeechToText,
  Option.Option<SpeechToTextService>
>() {}

/** Where recordings are kept, as the wire's `storage_backend` says it (the reference's "s3"/"minio"). */
export const STORAGE_BACKEND = "blob_store"

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"

/** A new short recording id: `rec_` and 10 random characters (≈ 52 bits). */
export const newRecordingId = (): string => {
  const bytes = Crypto.randomBytes(10)
  return `rec_${[...bytes].map((b) => ID_ALPHABET[b % ID_ALPHABET.length]).join("")}`
}

export const wire = (r: StoredRecording): Recording => ({ ...r, metadata: { ...r.metadata } })

export class Recordings extends Effect.Service<Recordings>()("@agentline/core/Recordings", {
  effect: Effect.gen(function*() {
    const repo = yield* RecordingsRepo
    const uploads = yield* Uploads
    const workflows = yield* WorkflowsRepo
    const speech = yield* RecordingSpeechToText

    const uploadUrls = Effect.fn("Recordings.uploadUrls")(function*(principal: Principal, request: BatchRecordingUploadRequest) {
      const items = yield* Effect.forEach(request.files, (file) =>
        Effect.gen(function*() {
          const recordingId = newRecordingId()
          const presigned = yield* uploads.presignRecording(principal, {
            recordingId,
            fileName: file.filename,
            fileSize: file.file_size,
            contentType: file.mime_type
          })
          return { upload_url: presigned.upload_url, recording_id: recordingId, storage_key: presigned.file_key }
        }))
      return { items } satisfies BatchRecordingUploadResponse
    })

    const create = Effect.fn("Recordings.create")(function*(principal: Principal, request: BatchRecordingCreateRequest) {
      const org = principal.organizationId
      const issues: Array<{ loc: ReadonlyArray<string | number>; message: string; input: unknown }> = []
      const at = (index: number, field: string, message: string, input: unknown) =>
        issues.push({ loc: ["body", "recordings", index, field], message: `recordings[${index}].${field}: ${message}`, input })
      const names = new Set<string>()
      const keys = new Set<string>()
      const taken = new Set((yield* repo.findActive(org, request.recordings.map((r) => r.recording_id))).map((r) => r.recording_id))
      const rows: Array<Omit<StoredRecording, "id" | "is_active">> = []
      const now = iso(yield* Clock.currentTimeMillis)
      for (const [index, item] of request.recordings.entries()) {
        if (!isRecordingKeyOf(org, item.storage_key)) {
          at(index, "storage_key", "not a recording upload of this organization; request an upload URL for the file (workflow-recordings upload-url) first", item.storage_key)
          continue
        }
        if (!issuedFor(org, item.recording_id, item.storage_key)) {
          at(index, "recording_id", "the storage_key was issued for another recording_id (use the pair the upload step returned)", item.recording_id)
          continue
        }
        if (names.has(item.recording_id) || taken.has(item.recording_id)) {
          at(index, "recording_id", `'${item.recording_id}' already names a recording of this organization`, item.recording_id)
          continue
        }
        if (keys.has(item.storage_key) || (yield* repo.storageKeyUsed(item.storage_key))) {
          at(index, "storage_key", "a recording was already created from this upload; upload the file again for another recording", item.storage_key)
          continue
        }
        if (item.workflow_id !== null && Option.isNone(yield* workflows.find(org, item.workflow_id))) {
          at(index, "workflow_id", `workflow ${item.workflow_id} not found in this organization`, item.workflow_id)
          continue
        }
        const bytes = yield* uploads.readUploaded(org, item.storage_key)
        if (Option.isNone(bytes)) {
          at(index, "storage_key", "nothing was uploaded to this key; send the file to its upload_url first", item.storage_key)
          continue
        }
        const decoded = decodeWav(bytes.value)
        if (Either.isLeft(decoded)) {
          at(index, "storage_key", `the file is not audio that can be played: ${decoded.left}. Accepted: ${ACCEPTED_FORMATS}`, item.storage_key)
          continue
        }
        names.add(item.recording_id)
        keys.add(item.storage_key)
        const audio = decoded.right
        rows.push({
          recording_id: item.recording_id,
          organization_id: org,
          workflow_id: item.workflow_id,
          tts_provider: item.tts_provider,
          tts_model: item.tts_model,
          tts_voice_id: item.tts_voice_id,
          transcript: item.transcript,
          storage_key: item.storage_key,
          storage_backend: STORAGE_BACKEND,
          // What the server read from the file wins over what the client said about it.
          metadata: {
            ...(item.metadata ?? {}),
            format: "wav",
            encoding: audio.encoding,
            sample_rate: audio.sampleRate,
            channels: audio.channels,
            bits_per_sample: audio.bitsPerSample,
            duration: audio.durationSeconds,
            file_size: bytes.value.length
          },
          created_by: principal.userId,
          created_at: now
        })
      }
      if (issues.length > 0) return yield* new InvalidRecordings({ issues })
      const inserted = yield* repo.insertAll(rows)
      // A concurrent request took a name or key between the checks and the insert.
      if (Option.isNone(inserted)) return yield* new RecordingIdTaken({ recordingId: rows.map((r) => r.recording_id).join(", ") })
      return { recordings: inserted.value.map(wire) }
    })

    const list = Effect.fn("Recordings.list")(function*(principal: Principal, params: RecordingListParams) {
      const recordings = (yield* repo.list(principal.organizationId, params)).map(wire)
      return { recordings, total: recordings.length }
    })

    const update = Effect.fn("Recordings.update")(function*(principal: Principal, id: number, request: RecordingUpdateRequest) {
      const updated = yield* repo.update(principal.organizationId, id, {
        ...(request.recording_id !== undefined ? { recording_id: request.recording_id } : {}),
        ...(request.transcript !== undefined ? { transcript: request.transcript } : {}),
        ...(request.tts_provider !== undefined ? { tts_provider: request.tts_provider } : {}),
        ...(request.tts_model !== undefined ? { tts_model: request.tts_model } : {}),
        ...(request.tts_voice_id !== undefined ? { tts_voice_id: request.tts_voice_id } : {})
      })
      if (Option.isNone(updated)) return yield* new RecordingNotFound({ recording: String(id) })
      if (updated.value === "taken") return yield* new RecordingIdTaken({ recordingId: request.recording_id ?? "" })
      return wire(updated.value)
    })

    const remove = Effect.fn("Recordings.remove")(function*(principal: Principal, recordingId: string) {
      if (!(yield* repo.deactivate(principal.organizationId, recordingId))) return yield* new RecordingNotFound({ recording: recordingId })
      return {
        success: true,
        message: `Recording ${recordingId} deleted; agents that name it fall back to their text (or say nothing) from now on`
      }
    })

    /** The words of a WAV file, by the server's speech-to-text service (the file's own rate, mono, then a second of silence). */
    const transcribe = Effect.fn("Recordings.transcribe")(function*(bytes: Uint8Array, language: string) {
      if (Option.isNone(speech)) {
        return yield* new SpeechToTextUnavailable({
          reason: "This server has no speech-to-text service (it runs an embedding application's call handler); " +
            "type the recording's transcript instead"
        })
      }
      if (bytes.length > MAX_RECORDING_BYTES) return yield* new UnreadableAudio({ reason: `file must be at most ${MAX_RECORDING_BYTES} bytes (5 MB)` })
      const decoded = decodeWav(bytes)
      if (Either.isLeft(decoded)) return yield* new UnreadableAudio({ reason: `file: ${decoded.left}. Accepted: ${ACCEPTED_FORMATS}` })
      const audio = decoded.right
      const format = { encoding: "l16le" as const, sampleRate: audio.sampleRate }
      const frameSize = Math.round(audio.sampleRate / 50)
      const padded = new Int16Array(audio.samples.length + audio.sampleRate)
      padded.set(audio.samples)
      const frames = Stream.fromIterable(Array.from({ length: Math.ceil(padded.length / frameSize) }, (_, i) =>
        Pcm.encode({ sampleRate: audio.sampleRate, samples: padded.subarray(i * frameSize, (i + 1) * frameSize) }, format)))
      const events = yield* Stream.runCollect(speech.value.transcribe(format, frames)).pipe(
        Effect.mapError((error) => new SpeechToTextUnavailable({ reason: `The speech-to-text service failed: ${error.message}; try again later` }))
      )
      const transcript = [...events].flatMap((e) => (e._tag === "Final" && e.text.trim() !== "" ? [e.text.trim()] : [])).join(" ")
      return { transcript, language, duration: audio.durationSeconds } satisfies TranscriptionResponse
    })

    return { uploadUrls, create, list, update, remove, transcribe } as const
  })
}) {
  /** The agents' `PlayableRecordings`: the organization's active recordings. */
  static readonly playable = Layer.effect(
    PlayableRecordings,
    Effect.map(RecordingsRepo, (repo) =>
      PlayableRecordings.of({
        active: (organizationId, recordingIds) =>
          Effect.map(repo.findActive(organizationId, recordingIds), (found) => new Set(found.map((r) => r.recording_id)))
      }))
  )
}

/** A recording ready to play: its words and its audio (mono 16-bit PCM at the file's rate). */
export interface PlayableRecording {
  readonly recordingId: string
  readonly transcript: string
  readonly audio: Pcm.PcmFrame
}

/**
 * The organization's active recording of that name with its audio, for a call; `Left` says why it
 * cannot be played (deleted, never created, file gone or unreadable), for the run's log.
 */
export const loadPlayable = (
  repo: RecordingsRepo["Type"],
  read: (storageKey: string) => Effect.Effect<Option.Option<Uint8Array>>,
  organizationId: number,
  recordingId: string
): Effect.Effect<Either.Either<PlayableRecording, string>> =>
  Effect.gen(function*() {
    const found = (yield* repo.findActive(organizationId, [recordingId]))[0]
    if (found === undefined) return Either.left(`recording '${recordingId}' does not exist in the organization (deleted or never created)`)
    const bytes = yield* read(found.storage_key)
    if (Option.isNone(bytes)) return Either.left(`the audio file of recording '${recordingId}' is no longer stored`)
    const decoded = decodeWav(bytes.value)
    if (Either.isLeft(decoded)) return Either.left(`recording '${recordingId}' cannot be played: ${decoded.left}`)
    return Either.right({
      recordingId,
      transcript: found.transcript,
      audio: { sampleRate: decoded.right.sampleRate, samples: decoded.right.samples }
    })
  })
