/**
 * The stored-credential form's fields by type (the API's `credential_data` shapes) and the request
 * they make. Secrets are write-only: an edit that leaves them empty keeps the stored ones.
 */
import type { CredentialType } from "@agentline/api/credentials/Credentials"

export interface DataField {
  readonly name: string
  readonly label: string
  readonly secret: boolean
  readonly required: boolean
  readonly placeholder?: string
}

export const CREDENTIAL_TYPES: ReadonlyArray<{ readonly type: CredentialType; readonly label: string }> = [
  { type: "api_key", label: "API key (in a header)" },
  { type: "bearer_token", label: "Bearer token" },
  { type: "basic_auth", label: "Basic authentication" },
  { type: "custom_header", label: "Custom header" },
  { type: "none", label: "None" }
]

export const DATA_FIELDS: { readonly [T in CredentialType]: ReadonlyArray<DataField> } = {
  api_key: [
    { name: "api_key", label: "API key", secret: true, required: true },
    { name: "header_name", label: "Header name", secret: false, required: false, placeholder: "X-API-Key" }
  ],
  bearer_token: [{ name: "token", label: "Token", secret: true, required: true }],
  basic_auth: [
    { name: "username", label: "Username", secret: false, required: true },
    { name: "password", label: "Password", secret: true, required: true }
  ],
  custom_header: [
    { name: "header_name", label: "Header name", secret: false, required: true },
    { name: "header_value", label: "Header value", secret: true, required: true }
  ],
  none: []
}

/**
 * The `credential_data` of a form's values: its type's fields, trimmed, empty ones left out. `null`
 * when editing and every field is empty (the stored data is kept).
 */
export const credentialData = (
  type: CredentialType,
  values: Readonly<Record<string, string>>,
  editing: boolean
): Record<string, string> | null => {
  const data: Record<string, string> = {}
  for (const field of DATA_FIELDS[type]) {
    const value = (values[field.name] ?? "").trim()
    if (value !== "") data[field.name] = value
  }
  return editing && Object.keys(data).length === 0 ? null : data
}
