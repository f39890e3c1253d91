import { Context, type Effect, type Option } from "effect"

export interface StoredUpload {
  readonly file_key: string
  readonly organization_id: number
  readonly file_name: string
  readonly declared_size: number
  readonly content_type: string
  readonly stored_size: number | null
  readonly expires_at: string
  readonly uploaded_at: string | null
}

/** Storage port for presigned uploads: a key is reserved when its URL is issued. */
export class UploadsRepo extends Context.Tag("@agentline/core/UploadsRepo")<
  UploadsRepo,
  {
    readonly reserve: (upload: Omit<StoredUpload, "stored_size" | "uploaded_at"> & { readonly now: string }) => Effect.Effect<void>
    readonly find: (fileKey: string) => Effect.Effect<Option.Option<StoredUpload>>
    readonly markUploaded: (fileKey: string, size: number, now: string) => Effect.Effect<void>
  }
>() {}
