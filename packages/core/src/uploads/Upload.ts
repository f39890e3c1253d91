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

/**
 * `<organization id>/recordings/<recording id>.<sanitized name>`: an agent's pre-recorded audio
 * (`/workflow-recordings`), uploaded the same way as contacts. Recording ids have no `.`, so the first
 * one ends the id (`rec` is not a prefix of the key of `rec_ab12`).
 */
export const recordingKey = (organizationId: number, recordingId: string, fileName: string): string =>
  `${organizationId}/recordings/${recordingId}.${sanitizeFileName(fileName)}`

/** What an upload is for: the folder of its key. */
export type UploadKind = "contacts" | "recordings"

/** The organization a contacts or recording key was issued to; none for anything not shaped like one. */
export const organizationOfKey = (key: string): Option.Option<number> => {
  const match = /^([1-9][0-9]{0,9})\/(contacts|recordings)\/[^/]+$/.exec(key)
  // Organization ids are 32-bit in storage: a larger number names no organization (and PostgreSQL
  // refuses to compare it with an integer column).
  return match === null || Number(match[1]) > 2_147_483_647 ? Option.none() : Option.some(Number(match[1]))
}

export const kindOfKey = (key: string): UploadKind => (/^[0-9]+\/recordings\//.test(key) ? "recordings" : "contacts")

/** Whether `key` is a recording key of the organization. */
export const isRecordingKeyOf = (organizationId: number, key: string): boolean =>
  new RegExp(`^${organizationId}/recordings/[^/]+$`).test(key)

/** Whether the recording key was issued for `recordingId` (the upload step named the file after it). */
export const issuedFor = (organizationId: number, recordingId: string, key: string): boolean =>
  !recordingId.includes(".") && key.startsWith(`${organizationId}/recordings/${recordingId}.`) &&
  !key.slice(`${organizationId}/recordings/`.length).includes("/")

/** The media types a WAV file goes by; any of them is accepted on a recording's PUT. */
export const WAV_MEDIA_TYPES = ["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"] as const

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
 * A contacts PUT must say it sends CSV: `text/csv` (with any parameters), a recording's PUT WAV audio
 * (`audio/wav` and its aliases); or either sends the type declared when the URL was issued (a presigned
 * bucket URL likewise binds the declared type).
 */
export const acceptsContentType = (contentType: string | undefined, declared: string, kind: UploadKind = "contacts"): boolean => {
  const type = mediaType(contentType)
  const usual = kind === "contacts" ? type === "text/csv" : (WAV_MEDIA_TYPES as ReadonlyArray<string>).includes(type)
  return usual || (type !== "" && type === mediaType(declared))
}
