/**
 * Provider credentials at rest and on the wire. Sensitive fields (as each provider's metadata marks
 * them) are encrypted with AES-256-GCM under the server's secret key before storage, and masked in
 * every response: all but the last four characters become `*`. A masked value sent back in an update
 * keeps the stored secret, so a GET body can be PUT back unchanged.
 */
import { Context, Layer, Redacted } from "effect"
import * as Crypto from "node:crypto"
import type { TelephonyProvider } from "./TelephonyProvider.js"

export const maskSecret = (value: string): string =>
  value.length <= 4 ? "*".repeat(value.length) : "*".repeat(value.length - 4) + value.slice(-4)

export const sensitiveFields = (provider: Pick<TelephonyProvider, "fields">): ReadonlyArray<string> =>
  provider.fields.filter((f) => f.sensitive).map((f) => f.name)

const mapSensitive = (
  provider: Pick<TelephonyProvider, "fields">,
  config: Record<string, unknown>,
  f: (value: string, name: string) => string
): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...config }
  for (const name of sensitiveFields(provider)) {
    const value = out[name]
    if (typeof value === "string" && value !== "") out[name] = f(value, name)
  }
  return out
}

export const maskConfig = (provider: Pick<TelephonyProvider, "fields">, config: Record<string, unknown>) =>
  mapSensitive(provider, config, maskSecret)

/** `incoming` with every sensitive value that equals the mask of the stored one replaced by the stored secret. */
export const mergeMaskedUpdate = (
  provider: Pick<TelephonyProvider, "fields">,
  stored: Record<string, unknown>,
  incoming: Record<string, unknown>
): Record<string, unknown> =>
  mapSensitive(provider, incoming, (value, name) => {
    const current = stored[name]
    return typeof current === "string" && current !== "" && value === maskSecret(current) ? current : value
  })

const PREFIX = "v1"

export class SecretBox extends Context.Tag("@agentline/core/SecretBox")<
  SecretBox,
  { readonly encrypt: (plain: string) => string; readonly decrypt: (sealed: string) => string }
>() {
  static make(secret: Redacted.Redacted<string> | Uint8Array): SecretBox["Type"] {
    const material = secret instanceof Uint8Array ? Buffer.from(secret) : Buffer.from(Redacted.value(secret), "utf8")
    const key = Buffer.from(Crypto.hkdfSync("sha256", material, Buffer.alloc(0), "agentline/provider-credentials/v1", 32))
    return {
      encrypt: (plain) => {
        const iv = Crypto.randomBytes(12)
        const cipher = Crypto.createCipheriv("aes-256-gcm", key, iv)
        const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
        return `${PREFIX}:${iv.toString("base64")}:${cipher.getAuthTag().toString("base64")}:${body.toString("base64")}`
      },
      decrypt: (sealed) => {
        const [version, iv, tag, body] = sealed.split(":")
        if (version !== PREFIX || !iv || !tag || body === undefined) throw new Error("not an encrypted value")
        const decipher = Crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"))
        decipher.setAuthTag(Buffer.from(tag, "base64"))
        return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8")
      }
    }
  }
  static layer = (secret: Redacted.Redacted<string> | Uint8Array) => Layer.sync(SecretBox, () => SecretBox.make(secret))
}

export const encryptConfig = (provider: Pick<TelephonyProvider, "fields">, config: Record<string, unknown>, box: SecretBox["Type"]) =>
  mapSensitive(provider, config, (value) => box.encrypt(value))

export const decryptConfig = (provider: Pick<TelephonyProvider, "fields">, config: Record<string, unknown>, box: SecretBox["Type"]) =>
  mapSensitive(provider, config, (value) => box.decrypt(value))
