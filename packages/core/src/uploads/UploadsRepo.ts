import { Context, type Effect, type Option } from "effect"

export interface StoredUpload {
  readonly file_key: string
  readonly organization_id: number
  readonly file_name: string
  readonly declared_size: number
  readonly content_type: string
  /** Bytes actually stored; null until the file arrived. */
  readonly stored_size: number | null
  readonly expires_at: string
  readonly uploaded_at: string | null
}

/**
 * Storage port for presigned uploads: a key is reserved when its URL is issued and marked uploaded once
 * the file is stored. Lookups always name the organization, so one organization never sees another's key.
 */
export class UploadsRepo extends Context.Tag("@agentline/core/UploadsRepo")<
  UploadsRepo,
  {
    readonly reserve: (
      upload: Omit<StoredUpload, "stored_size" | "uploaded_at"> & { readonly now: string }
    ) => Effect.Effect<void>
    readonly find: (organizationId: number, fileKey: string) => Effect.Effect<Option.Option<StoredUpload>>
    readonly markUploaded: (fileKey: string, size: number, now: string) => Effect.Effect<void>
  }
>() {}
