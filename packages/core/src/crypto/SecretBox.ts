/**
 * Sealing single values with the server's secret key (AES-256-GCM), for what is stored and must be
 * read back: provider credentials, the organization's credentials, webhook endpoints' signing secrets.
 *
 * Nothing here logs or formats a secret into an error message.
 */
import { Context, Layer, Redacted } from "effect"
import * as Crypto from "node:crypto"

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
    // The label names the first use (provider credentials) and stays: values sealed under it must open.
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
