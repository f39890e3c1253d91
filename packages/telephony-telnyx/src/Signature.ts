/**
 * Telnyx webhook signatures (pure, `node:crypto`). Telnyx signs every webhook with its Ed25519 key:
 *
 *   telnyx-timestamp:          unix seconds when the webhook was sent
 *   telnyx-signature-ed25519:  base64 Ed25519 signature of the UTF-8 bytes `{timestamp}|{raw body}`
 *
 * The account's public key (Mission Control → Keys & Credentials → Public Key) is 32 raw bytes in
 * base64; a DER (SPKI) or PEM public key is accepted too. The URL is not signed, so a webhook that
 * verifies does so at any address; freshness comes from the timestamp (5 minutes either way, as the
 * Telnyx SDKs check it), duplicates within that window are harmless (callbacks are idempotent).
 */
import * as Crypto from "node:crypto"

export const SIGNATURE_HEADER = "telnyx-signature-ed25519"
export const TIMESTAMP_HEADER = "telnyx-timestamp"

/** How far a webhook's timestamp may be from our clock, either way. */
export const TOLERANCE_SECONDS = 300

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 key bytes follow it. */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex")

/** The public key of a configuration's `webhook_public_key`, or undefined when it is not one. */
export const publicKey = (text: string | undefined): Crypto.KeyObject | undefined => {
  if (text === undefined || text.trim() === "") return undefined
  try {
    if (text.includes("-----BEGIN")) return checked(Crypto.createPublicKey(text))
    const bytes = Buffer.from(text.replace(/\s+/g, ""), "base64")
    const der = bytes.length === 32 ? Buffer.concat([SPKI_PREFIX, bytes]) : bytes
    return checked(Crypto.createPublicKey({ key: der, format: "der", type: "spki" }))
  } catch {
    return undefined
  }
}

const checked = (key: Crypto.KeyObject) => (key.asymmetricKeyType === "ed25519" ? key : undefined)

/** The base64 32-byte form of a public key, as the Telnyx portal shows it. */
export const publicKeyBase64 = (key: Crypto.KeyObject): string =>
  key.export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX.length).toString("base64")

const signedBytes = (timestamp: string, rawBody: Uint8Array) =>
  Buffer.concat([Buffer.from(`${timestamp}|`, "utf8"), rawBody])

/** The signature Telnyx sends for `rawBody` at `timestamp` (what the fake Telnyx signs with). */
export const sign = (privateKey: Crypto.KeyObject, timestamp: number, rawBody: Uint8Array): string =>
  Crypto.sign(null, signedBytes(String(timestamp), rawBody), privateKey).toString("base64")

/** Header lookup that does not depend on how the server spelled the header name. */
export const header = (headers: Readonly<Record<string, string | undefined>>, wanted: string): string | undefined => {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value
  return undefined
}

/**
 * Whether a webhook is signed by the holder of `key`, at most `TOLERANCE_SECONDS` from `nowMillis`.
 * No key, a missing or malformed header, a stale timestamp or another body: false.
 */
export const verify = (
  key: Crypto.KeyObject | undefined,
  headers: Readonly<Record<string, string | undefined>>,
  rawBody: Uint8Array,
  nowMillis: number
): boolean => {
  if (key === undefined) return false
  const timestamp = header(headers, TIMESTAMP_HEADER)?.trim()
  const signature = header(headers, SIGNATURE_HEADER)?.trim()
  if (timestamp === undefined || signature === undefined || !/^\d{1,12}$/.test(timestamp)) return false
  if (Math.abs(nowMillis / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false
  const bytes = Buffer.from(signature, "base64")
  if (bytes.length !== 64) return false
  try {
    return Crypto.verify(null, signedBytes(timestamp, rawBody), key, bytes)
  } catch {
    return false
  }
}
