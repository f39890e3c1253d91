/**
 * Building blocks of provider configuration schemas and field lists, so every adapter decodes the
 * same way (carried by the schema itself, so no caller can forget them):
 * - every invalid or missing field is reported at once (`errors: "all"`);
 * - unknown keys are dropped, not rejected: `from_numbers` (numbers are managed through their own
 *   endpoints), `provider`, read-only values a client echoes back from a GET, or keys a newer client
 *   knows. A typo in a required field still fails, as that field is then missing;
 * - strings are trimmed (pasted credentials often carry a newline); required ones must not be empty;
 * - optional strings may be `null` or absent (both mean "not set").
 */
import { Schema } from "effect"
import type { ProviderField } from "./TelephonyProvider.js"

const parseOptions = { errors: "all", onExcessProperty: "ignore" } as const

/** A provider config schema: a struct that reports every failing field and drops unknown keys. */
export const providerConfig = <Fields extends Schema.Struct.Fields>(fields: Fields) => Schema.Struct(fields).annotations({ parseOptions })

/** A required credential: trimmed, non-empty. */
export const requiredText = (name: string) => Schema.Trim.pipe(Schema.nonEmptyString({ message: () => `${name} must not be empty` }))

/** An optional string: absent or null means not set. */
export const optionalText = Schema.optionalWith(Schema.Trim, { exact: true, nullable: true })

/** A required http:// or https:// URL; the message shows `example`. */
export const httpUrl = (name: string, example: string) =>
  requiredText(name).pipe(Schema.filter((value) => {
    try {
      const url = new URL(value)
      return url.protocol === "http:" || url.protocol === "https:"
    } catch {
      return false
    }
  }, { message: () => `${name} must be an http:// or https:// URL, e.g. ${example}` }))

/** The value of a string field, or undefined when it is absent or empty. */
export const present = (value: string | undefined): string | undefined => value === undefined || value === "" ? undefined : value

/** A plain text field of the metadata list. */
export const textField = (name: string, label: string, required: boolean, description?: string): ProviderField => ({
  name,
  label,
  type: "text",
  required,
  sensitive: false,
  ...(description !== undefined ? { description } : {})
})

/**
 * An account identifier kept like a secret (encrypted at rest, masked in responses, as the reference
 * masks it) but typed in a visible text input: a person copies it from the provider's console and must
 * see what they pasted. A form sends the mask back unchanged to keep the stored value.
 */
export const identifierField = (name: string, label: string, required: boolean, description?: string): ProviderField => ({
  ...secretField(name, label, required, description),
  type: "text"
})

/** A secret: encrypted at rest, masked in responses, a password input in forms. */
export const secretField = (name: string, label: string, required: boolean, description?: string): ProviderField => ({
  name,
  label,
  type: "password",
  required,
  sensitive: true,
  ...(description !== undefined ? { description } : {})
})
