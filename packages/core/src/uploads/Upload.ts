/**
 * Contacts upload: the pure rules (keys, URL signatures, content types) that the
 * `Uploads` service applies. Kept free of effects so each rule is tested on its own.
 */
import { Option, Redacted } from "effect"
import * as Crypto from "node:crypto"


/**
 * How much of a file name a key keeps. The key's last part (`<uuid>_<name>`) is a path parameter of
 * the upload URL, and the router refuses parameters over 100 characters (a 404 on every PUT), so the
 * name part stays well below: the whole name is kept as the upload's metadata, not in the key.
 */
export const KEY_NAME_LENGTH = 40

/**
 * The file name as it may appear in a key: every character outside `[A-Za-z0-9._-]` becomes `_` (the
 * reference's rule), cut to `KEY_NAME_LENGTH` characters keeping the extension (`.csv`).
 */
export const sanitizeFileName = (name: string): string => {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, "_")
  if (safe.length <= KEY_NAME_LENGTH) return safe
  const dot = safe.lastIndexOf(".")
  const extension = dot > 0 && safe.length - dot <= 8 ? safe.slice(dot) : ""
  return safe.slice(0, KEY_NAME_LENGTH - extension.length) + extension
}

/** `<organization id>/contacts/<uuid>_<sanitized name>`: the key says whose file it is (see BlobStore). */
export const contactsKey = (organizationId: number, uuid: string, fileName: string): string =>
  `${organizationId}/contacts/${uuid}_${sanitizeFileName(fileName)}`

/** The organization a contacts key was issued to; none for anything not shaped like one. */
export const organizationOfKey = (key: string): Option.Option<number> => {
  const match = /^([1-9][0-9]{0,9})\/contacts\/[^/]+$/.exec(key)
  // Ids are the databases' 32-bit integers: a larger number names no organization (PostgreSQL would
  // refuse to compare it with an integer column).
  return match === null || Number(match[1]) > MAX_ROW_ID ? Option.none() : Option.some(Number(match[1]))
}

const MAX_ROW_ID = 2_147_483_647

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
