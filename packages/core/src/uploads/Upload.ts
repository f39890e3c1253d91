import { Schema } from "effect"

export const CONTENT_TYPES = ["text/csv", "application/vnd.ms-excel", "text/plain"] as const

export const PresignRequest = Schema.Struct({
  file_name: Schema.String.pipe(
    Schema.minLength(1, { message: () => "file_name must be 1 to 255 characters" }),
    Schema.maxLength(255, { message: () => "file_name must be 1 to 255 characters" }),
    Schema.filter((name) => /\.csv$/i.test(name), { message: () => "file_name must end in .csv" })
  ),
  file_size: Schema.Int.pipe(Schema.greaterThan(0, { message: () => "file_size must be a positive number of bytes" })),
  content_type: Schema.optionalWith(Schema.Literal(...CONTENT_TYPES), { default: () => "text/csv" as const })
})
export type PresignRequest = typeof PresignRequest.Type

/** `expires_in` is in seconds. */
export const PresignResponse = Schema.Struct({
  upload_url: Schema.String,
  file_key: Schema.String,
  expires_in: Schema.Int
})

export const UploadReceipt = Schema.Struct({ file_key: Schema.String, size: Schema.Int })
