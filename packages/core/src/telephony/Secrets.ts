/**
 * Provider credentials at rest and on the wire. The fields a provider marks `sensitive` are encrypted
 * with AES-256-GCM under the server's secret key before storage, and masked in every response: all
 * but the last four characters become `*`. A masked value sent back in an update keeps the stored
 * secret, so a GET body can be PUT back unchanged.
 *
 * Nothing here logs or formats a secret into an error message.
 */
import { Context, Layer, Redacted } from "effect"
import * as Crypto from "node:crypto"
import type { TelephonyProvider } from "./TelephonyProvider.js"

/** What the helpers need of a provider: which of its fields are sensitive. */
export type FieldsOf = Pick<TelephonyProvider, "fields">

/** All but the last four characters as `*`; values of four characters or fewer are all stars. */
export const maskSecret = (value: string): string =>
  value.length <= 4 ? "*".repeat(value.length) : "*".repeat(value.length - 4) + value.slice(-4)

export const sensitiveFields = (provider: FieldsOf): Array<string> =>
  provider.fields.filter((f) => f.sensitive).map((f) => f.name)

/** `config` with `f` applied to every non-empty sensitive string value; other values are copied. */
const mapSensitive = (
  provider: FieldsOf,
  config: Readonly<Record<string, unknown>>,
  f: (value: string, name: string) => string
): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...config }
  for (const name of sensitiveFields(provider)) {
    const value = out[name]
    if (typeof value === "string" && value !== "") out[name] = f(value, name)
  }
  return out
}

/** The config as responses show it: sensitive values masked. */
export const maskConfig = (provider: FieldsOf, config: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  mapSensitive(provider, config, maskSecret)

/**
 * `incoming` with every sensitive value that equals the mask of the stored value replaced by the
 * stored secret; any other value (a new secret) is kept as sent. Fields absent from `incoming` stay
 * absent: partial updates merge the stored config in first.
 */
export const mergeMaskedUpdate = (
  provider: FieldsOf,
  stored: Readonly<Record<string, unknown>>,
  incoming: Readonly<Record<string, unknown>>
): Record<string, unknown> =>
  mapSensitive(provider, incoming, (value, name) => {
    const current = stored[name]
    return typeof current === "string" && current !== "" && value === maskSecret(current) ? current : value
  })

/** A stored value could not be decrypted: another server key, or a damaged value. */
export class SecretDecryptionError extends Error {
  override readonly name = "SecretDecryptionError"
}

const VERSION = "v1"
const IV_BYTES = 12
const TAG_BYTES = 16

/**
 * Encrypts and decrypts single values with the server's secret key. Values are sealed as
 * `v1:<iv b64>:<tag b64>:<ciphertext b64>` with a random 12-byte IV each time, so equal secrets do
 * not produce equal ciphertexts. `decrypt` throws `SecretDecryptionError` for a value sealed under
 * another key, a tampered value, or something that is not a sealed value at all.
 */
export class SecretBox extends Context.Tag("@agentline/core/SecretBox")<
  SecretBox,
  {
    readonly encrypt: (plain: string) => string
    readonly decrypt: (sealed: string) => string
  }
>() {
  static make(secret: Redacted.Redacted<string> | Uint8Array): SecretBox["Type"] {
    const material = secret instanceof Uint8Array ? Buffer.from(secret) : Buffer.from(Redacted.value(secret), "utf8")
    if (material.length === 0) throw new Error("The server secret key is empty: set a long random secret key")
    // HKDF spreads a passphrase-like secret over a full 256-bit key, and the label keeps this key
    // distinct from other uses of the same server secret (link signing, upload URLs). No salt: the
    // key must be the same on every start, and the secret is not a low-entropy password to protect.
    const key = Buffer.from(Crypto.hkdfSync("sha256", material, Buffer.alloc(0), "agentline/provider-credentials/v1", 32))
    return {
      encrypt: (plain) => {
        const iv = Crypto.randomBytes(IV_BYTES)
        const cipher = Crypto.createCipheriv("aes-256-gcm", key, iv)
        const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
        return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":")
      },
      decrypt: (sealed) => {
        const parts = sealed.split(":")
        const [version, iv, tag, body] = parts
        if (parts.length !== 4 || version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
          throw new SecretDecryptionError("The stored value is not an encrypted credential (expected v1:<iv>:<tag>:<ciphertext>)")
        }
        const ivBytes = Buffer.from(iv, "base64")
        const tagBytes = Buffer.from(tag, "base64")
        if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) {
          throw new SecretDecryptionError("The stored credential is damaged (bad IV or tag length)")
        }
        try {
          const decipher = Crypto.createDecipheriv("aes-256-gcm", key, ivBytes, { authTagLength: TAG_BYTES })
          decipher.setAuthTag(tagBytes)
          return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8")
        } catch {
          throw new SecretDecryptionError(
            "A stored credential cannot be decrypted: the server secret key differs from the one it was saved with, or the value is damaged"
          )
        }
      }
    }
  }

  static layer(secret: Redacted.Redacted<string> | Uint8Array): Layer.Layer<SecretBox> {
    return Layer.sync(SecretBox, () => SecretBox.make(secret))
  }
}

/** The config with its sensitive values sealed for storage; other fields are stored as they are. */
export const encryptConfig = (
  provider: FieldsOf,
  config: Readonly<Record<string, unknown>>,
  box: SecretBox["Type"]
): Record<string, unknown> => mapSensitive(provider, config, (value) => box.encrypt(value))

/** The stored config with its sensitive values opened. Throws `SecretDecryptionError` as `decrypt` does. */
export const decryptConfig = (
  provider: FieldsOf,
  config: Readonly<Record<string, unknown>>,
  box: SecretBox["Type"]
): Record<string, unknown> => mapSensitive(provider, config, (value) => box.decrypt(value))
