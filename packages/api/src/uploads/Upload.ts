/** The contacts upload as the API shows it: presign request and response, and the receipt of the PUT. */
import { Schema } from "effect"

/** What `content_type` may declare; the reference accepts any string but only ever shows `text/csv`. */
export const CONTENT_TYPES = ["text/csv", "application/vnd.ms-excel", "text/plain"] as const

export const PresignRequest = Schema.Struct({
  file_name: Schema.String.pipe(
    Schema.minLength(1, { message: () => "file_name must be 1 to 255 characters" }),
    Schema.maxLength(255, { message: () => "file_name must be 1 to 255 characters" }),
    Schema.filter((name) => /\.csv$/i.test(name), {
      message: () => "file_name must end in .csv (contacts are uploaded as CSV)",
      arbitrary: () => (fc) => fc.stringMatching(/^[A-Za-z0-9 _-]{1,40}$/).map((n) => `${n}.csv`)
    })
  ),
  file_size: Schema.Int.pipe(Schema.greaterThan(0, { message: () => "file_size must be a positive number of bytes" })),
  content_type: Schema.optionalWith(Schema.Literal(...CONTENT_TYPES), { default: () => "text/csv" as const })
})
export type PresignRequest = typeof PresignRequest.Type

/** `expires_in` is in seconds; `file_key` is what a campaign's `source_id` takes. */
export const PresignResponse = Schema.Struct({
  upload_url: Schema.String,
  file_key: Schema.String,
  expires_in: Schema.Int
})
export type PresignResponse = typeof PresignResponse.Type

export const UploadReceipt = Schema.Struct({ file_key: Schema.String, size: Schema.Int })
export type UploadReceipt = typeof UploadReceipt.Type
