/**
 * The telephony configuration form, generated from `GET /organizations/telephony-providers/metadata`:
 * one input per provider field, typed by the field's `type`, and the conversion between the form's
 * values and the `config` object the API takes.
 *
 * Secrets: a stored configuration comes back with its sensitive values masked. The form shows the mask
 * in a password input (in a text input for an account identifier, a sensitive field of type `text`) and, left untouched, sends the mask back, which the server reads as "keep the
 * stored secret"; typing a new value replaces it. An emptied optional secret is sent as absent.
 */

export interface ProviderFieldMeta {
  readonly name: string
  readonly label: string
  readonly type: string
  readonly required: boolean
  readonly sensitive: boolean
  readonly description?: string | undefined
}

export interface ProviderMeta {
  readonly provider: string
  readonly display_name: string
  readonly fields: ReadonlyArray<ProviderFieldMeta>
}

/** How a field is edited. Unknown metadata types are edited as text (the server validates the value). */
export type InputKind = "text" | "password" | "textarea" | "lines" | "number" | "checkbox" | "json" | "readonly"

export const inputKind = (field: ProviderFieldMeta): InputKind => {
  // A sensitive field declared as text is an account identifier (masked in responses, typed visibly).
  if (field.sensitive) return field.type === "text" ? "text" : "password"
  switch (field.type) {
    case "password":
      return "password"
    case "textarea":
      return "textarea"
    case "string-array":
      return "lines"
    case "number":
      return "number"
    case "boolean":
      return "checkbox"
    case "json":
      return "json"
    case "readonly":
      return "readonly"
    default:
      return "text"
  }
}

export type FormValues = Record<string, string | boolean>

/** The form's starting values: a stored configuration's credentials (masked secrets as they are), or blanks. */
export const initialValues = (meta: ProviderMeta, credentials?: Readonly<Record<string, unknown>>): FormValues => {
  const values: FormValues = {}
  for (const field of meta.fields) {
    const value = credentials?.[field.name]
    switch (inputKind(field)) {
      case "checkbox":
        values[field.name] = value === true
        break
      case "lines":
        values[field.name] = Array.isArray(value) ? value.map(String).join("\n") : ""
        break
      case "json":
        values[field.name] = value === undefined || value === null ? "" : JSON.stringify(value, null, 2)
        break
      default:
        values[field.name] = value === undefined || value === null ? "" : String(value)
    }
  }
  return values
}

/**
 * The `config` to send (with `provider`), or the problems with the values, by field name. Empty
 * optional fields are left out (the provider's default applies); `readonly` fields are never sent.
 */
export const toConfig = (
  meta: ProviderMeta,
  values: FormValues
): { readonly config: Record<string, unknown> & { readonly provider: string } } | { readonly errors: Record<string, string> } => {
  const config: Record<string, unknown> = {}
  const errors: Record<string, string> = {}
  for (const field of meta.fields) {
    const kind = inputKind(field)
    const raw = values[field.name]
    if (kind === "readonly") continue
    if (kind === "checkbox") {
      config[field.name] = raw === true
      continue
    }
    const text = typeof raw === "string" ? raw : ""
    if (text.trim() === "") {
      if (field.required) errors[field.name] = `${field.label} is required`
      continue
    }
    switch (kind) {
      case "number": {
        const value = Number(text.trim())
        if (Number.isFinite(value)) config[field.name] = value
        else errors[field.name] = `${field.label} must be a number`
        break
      }
      case "lines":
        config[field.name] = text.split("\n").map((line) => line.trim()).filter((line) => line !== "")
        break
      case "json":
        try {
          config[field.name] = JSON.parse(text)
        } catch (error) {
          errors[field.name] = `${field.label} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`
        }
        break
      case "password":
        // Sent exactly as shown: an untouched mask keeps the stored secret.
        config[field.name] = text
        break
      default:
        // An identifier's untouched mask, trimmed, is still the mask: the stored value is kept.
        config[field.name] = text.trim()
    }
  }
  return Object.keys(errors).length > 0 ? { errors } : { config: { ...config, provider: meta.provider } }
}

/**
 * A 422's items by form field: `["body", "config", <field>, …]` goes to that field, `["body", "name"]`
 * to `name`, anything else to `""` (the form as a whole).
 */
export const configIssues = (
  issues: ReadonlyArray<{ readonly loc: ReadonlyArray<string | number>; readonly msg: string }>
): Record<string, Array<string>> => {
  const out: Record<string, Array<string>> = {}
  for (const issue of issues) {
    const loc = issue.loc[0] === "body" ? issue.loc.slice(1) : issue.loc
    const key = loc[0] === "config" && loc.length > 1 ? String(loc[1]) : loc[0] === "name" ? "name" : ""
    ;(out[key] ??= []).push(issue.msg)
  }
  return out
}
