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
 * Storage port for presigned uploads: a key is reserved when its URL is issued, claimed by the one PUT
 * that may store it, and marked uploaded once the file is stored. Lookups always name the organization, so one organization never sees another's key.
 */
export class UploadsRepo extends Context.Tag("@agentline/core/UploadsRepo")<
  UploadsRepo,
  {
    readonly reserve: (
      upload: Omit<StoredUpload, "stored_size" | "uploaded_at"> & { readonly now: string }
    ) => Effect.Effect<void>
    readonly find: (organizationId: number, fileKey: string) => Effect.Effect<Option.Option<StoredUpload>>
    /**
     * Claims the upload for one PUT: false when another PUT already claimed it (and is storing the
     * file or has stored it). A claim is given back with `abandon` when the PUT stores nothing.
     */
    readonly claim: (fileKey: string, now: string) => Effect.Effect<boolean>
    readonly abandon: (fileKey: string) => Effect.Effect<void>
    readonly markUploaded: (fileKey: string, size: number, now: string) => Effect.Effect<void>
  }
>() {}
