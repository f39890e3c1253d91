/**
 * Contacts upload: the wire schemas and the pure rules (keys, URL signatures, content types) that the
 * `Uploads` service applies. Kept free of effects so each rule is tested on its own.
 */
import { Option, Redacted, Schema } from "effect"
import * as Crypto from "node:crypto"

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

/**
 * The file name as it may appear in a key: every character outside `[A-Za-z0-9._-]` becomes `_` (the
 * reference's rule), and only the last 100 are kept so the `.csv` ending survives and keys stay short.
 */
export const sanitizeFileName = (name: string): string => name.replace(/[^A-Za-z0-9._-]/g, "_").slice(-100)

/** `<organization id>/contacts/<uuid>_<sanitized name>`: the key says whose file it is (see BlobStore). */
export const contactsKey = (organizationId: number, uuid: string, fileName: string): string =>
  `${organizationId}/contacts/${uuid}_${sanitizeFileName(fileName)}`

/** The organization a contacts key was issued to; none for anything not shaped like one. */
export const organizationOfKey = (key: string): Option.Option<number> => {
  const match = /^([1-9][0-9]{0,15})\/contacts\/[^/]+$/.exec(key)
  return match === null ? Option.none() : Option.some(Number(match[1]))
}

/**
 * The URL signature: HMAC-SHA256 under the server secret (with a purpose prefix, so an upload signature
 * can never pass as another kind of signed link) over the key, the expiry (unix seconds) and the
 * declared size, so none of them can be changed without a new URL.
 */
export const uploadSignature = (
  secret: Redacted.Redacted<string>,
  key: string,
  expiresUnixSeconds: number,
  declaredSize: number
): string =>
  Crypto.createHmac("sha256", `upload:${Redacted.value(secret)}`)
    .update(`${key}\n${expiresUnixSeconds}\n${declaredSize}`)
    .digest("base64url")

/** Whether `signature` and `expires` (as sent in the URL) are valid for the upload at `nowMillis`. */
export const verifyUploadSignature = (
  secret: Redacted.Redacted<string>,
  key: string,
  expires: string,
  signature: string,
  declaredSize: number,
  nowMillis: number
): boolean => {
  if (!/^[0-9]{1,15}$/.test(expires)) return false
  const expected = Buffer.from(uploadSignature(secret, key, Number(expires), declaredSize))
  const given = Buffer.from(signature)
  if (expected.length !== given.length || !Crypto.timingSafeEqual(expected, given)) return false
  return Number(expires) * 1000 > nowMillis
}

/** The media type of a Content-Type header, lower-cased and without parameters (`text/csv; charset=utf-8` → `text/csv`). */
export const mediaType = (contentType: string | undefined): string =>
  (contentType ?? "").split(";")[0]!.trim().toLowerCase()

/**
 * The PUT must say it sends CSV: `text/csv` (with any parameters), or the type declared when the URL
 * was issued (a presigned bucket URL likewise binds the declared type).
 */
export const acceptsContentType = (contentType: string | undefined, declared: string): boolean => {
  const type = mediaType(contentType)
  return type === "text/csv" || (type !== "" && type === mediaType(declared))
}
