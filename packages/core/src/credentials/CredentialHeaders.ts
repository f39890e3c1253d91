/**
 * What a stored credential adds to a request, by type (pure), and the check of its data that names
 * every field at fault.
 */
import type { CredentialType } from "@agentline/api/credentials/Credentials"

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** No line breaks or other control characters in a header value (request splitting). */
const HEADER_VALUE = /^[^\u0000-\u0008\u000a-\u001f\u007f]*$/

export interface DataIssue {
  readonly field: string
  readonly message: string
}

const text = (data: Readonly<Record<string, unknown>>, field: string, issues: Array<DataIssue>, required: boolean) => {
  const value = data[field]
  if (value === undefined || value === null || value === "") {
    if (required) issues.push({ field, message: `${field} is required` })
    return undefined
  }
  if (typeof value !== "string") {
    issues.push({ field, message: `${field} must be a string` })
    return undefined
  }
  if (!HEADER_VALUE.test(value)) {
    issues.push({ field, message: `${field} must not contain line breaks or control characters` })
    return undefined
  }
  return value
}

const headerName = (data: Readonly<Record<string, unknown>>, field: string, issues: Array<DataIssue>, fallback?: string) => {
  const value = text(data, field, issues, fallback === undefined) ?? fallback
  if (value !== undefined && !HEADER_NAME.test(value)) {
    issues.push({ field, message: `${field} must be an HTTP header name (letters, digits and -, e.g. X-API-Key)` })
    return undefined
  }
  return value
}

/** The headers a credential adds, or every problem with its data. */
export const credentialHeaders = (
  type: CredentialType,
  data: Readonly<Record<string, unknown>>
): { readonly _tag: "Headers"; readonly headers: Record<string, string> } | { readonly _tag: "Invalid"; readonly issues: ReadonlyArray<DataIssue> } => {
  const issues: Array<DataIssue> = []
  const headers: Record<string, string> = {}
  switch (type) {
    case "none":
      break
    case "api_key": {
      const name = headerName(data, "header_name", issues, "X-API-Key")
      const key = text(data, "api_key", issues, true)
      if (name !== undefined && key !== undefined) headers[name] = key
      break
    }
    case "bearer_token": {
      const token = text(data, "token", issues, true)
      if (token !== undefined) headers.Authorization = `Bearer ${token}`
      break
    }
    case "basic_auth": {
      const username = text(data, "username", issues, true)
      const password = text(data, "password", issues, true)
      if (username?.includes(":")) issues.push({ field: "username", message: "username must not contain ':' (HTTP Basic)" })
      else if (username !== undefined && password !== undefined) {
        headers.Authorization = `Basic ${Buffer.from(`${username}:${password}`, "utf8").toString("base64")}`
      }
      break
    }
    case "custom_header": {
      const name = headerName(data, "header_name", issues)
      const value = text(data, "header_value", issues, true)
      if (name !== undefined && value !== undefined) headers[name] = value
      break
    }
  }
  return issues.length > 0 ? { _tag: "Invalid", issues } : { _tag: "Headers", headers }
}
