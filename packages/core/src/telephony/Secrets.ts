/**
 * Provider credentials at rest and on the wire. The fields a provider marks `sensitive` are sealed
 * with the server's `SecretBox` before storage, and masked in every response: all
 * but the last four characters become `*`. A masked value sent back in an update keeps the stored
 * secret, so a GET body can be PUT back unchanged.
 *
 * Nothing here logs or formats a secret into an error message.
 */
import type { SecretBox } from "../crypto/SecretBox.js"
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
