import { Context, type Effect, type Option } from "effect"

/** A recording as stored (the wire's fields; `metadata` holds what was read from the file). */
export interface StoredRecording {
  readonly id: number
  readonly recording_id: string
  readonly organization_id: number
  readonly workflow_id: number | null
  readonly tts_provider: string | null
  readonly tts_model: string | null
  readonly tts_voice_id: string | null
  readonly transcript: string
  readonly storage_key: string
  readonly storage_backend: string
  readonly metadata: Readonly<Record<string, unknown>>
  readonly created_by: number
  readonly created_at: string
  readonly is_active: boolean
}

export interface RecordingFilter {
  readonly workflow_id?: number | undefined
  readonly tts_provider?: string | undefined
  readonly tts_model?: string | undefined
  readonly tts_voice_id?: string | undefined
}

/**
 * Storage port for an organization's recordings. Every lookup names the organization; only active
 * recordings are listed or found by name (a deleted one stays, inactive).
 */
export class RecordingsRepo extends Context.Tag("@agentline/core/RecordingsRepo")<
  RecordingsRepo,
  {
    /** Inserts all or none; `None` when a recording id or storage key is already taken (nothing inserted). */
    readonly insertAll: (
      recordings: ReadonlyArray<Omit<StoredRecording, "id" | "is_active">>
    ) => Effect.Effect<Option.Option<ReadonlyArray<StoredRecording>>>
    readonly list: (organizationId: number, filter: RecordingFilter) => Effect.Effect<ReadonlyArray<StoredRecording>>
    /** Active recordings of the organization among `recordingIds`. */
    readonly findActive: (organizationId: number, recordingIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<StoredRecording>>
    readonly findById: (organizationId: number, id: number) => Effect.Effect<Option.Option<StoredRecording>>
    /** Whether a recording (active or not) was created from this storage key. */
    readonly storageKeyUsed: (storageKey: string) => Effect.Effect<boolean>
    /** `None` when the row is gone or inactive; fails nothing when the new name is taken: `Some(false)`. */
    readonly update: (
      organizationId: number,
      id: number,
      patch: Partial<Pick<StoredRecording, "recording_id" | "transcript" | "tts_provider" | "tts_model" | "tts_voice_id">>
    ) => Effect.Effect<Option.Option<StoredRecording | "taken">>
    /** Marks the active recording of that name inactive; false when there is none. */
    readonly deactivate: (organizationId: number, recordingId: string) => Effect.Effect<boolean>
  }
>() {}
