/**
 * Cloudonix's requests to this server, read (pure).
 *
 * Cloudonix's "Voice Application Request" page says a voice application is invoked with its
 * parameters "as either URL query string parameters (for requests performed with the HTTP GET method)
 * or in a JSON encoded HTTP request body (for requests performed with the HTTP POST method)"; session
 * notifications and CDRs are JSON as well. A form-encoded body (the Twilio dialect CXML comes from) is
 * read too. So a body is JSON when it looks like JSON, a form otherwise, and an empty body's
 * parameters are the URL's query.
 */

/** A request's parameters: JSON values (a JSON body), or strings (a form, a query). */
export type Params = Readonly<Record<string, unknown>>

export type Read =
  /** A JSON body: an object, or a list (Cloudonix may send a session notification as a one-element list). */
  | { readonly _tag: "Json"; readonly value: unknown }
  /** A form-encoded body, or the query of a request without a body. */
  | { readonly _tag: "Params"; readonly params: Params }
  | { readonly _tag: "Invalid"; readonly reason: string }

export const isRecord = (value: unknown): value is Params => typeof value === "object" && value !== null && !Array.isArray(value)

/** A parameter as text: a non-empty string, or a number written out. */
export const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : typeof value === "number" && Number.isFinite(value) ? String(value) : undefined

/** The first value of each name (a repeated name keeps its first value). */
const firstValues = (entries: Iterable<[string, string]>): Params => {
  const params: Record<string, string> = {}
  for (const [name, value] of entries) if (!Object.hasOwn(params, name)) params[name] = value
  return params
}

const queryOf = (url: string | undefined): Params => {
  if (url === undefined) return {}
  try {
    return firstValues(new URL(url).searchParams.entries())
  } catch {
    return {}
  }
}

/** A request body (and, for a request without one, its URL) as Cloudonix sent it. */
export const read = (body: string, url?: string): Read => {
  const trimmed = body.trim()
  if (trimmed === "") return { _tag: "Params", params: queryOf(url) }
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return { _tag: "Json", value: JSON.parse(trimmed) as unknown }
    } catch {
      return { _tag: "Invalid", reason: "the body is not valid JSON" }
    }
  }
  return { _tag: "Params", params: firstValues(new URLSearchParams(trimmed).entries()) }
}

/** The parameters of a request that must be one object (a voice application request). */
export const paramsOf = (request: Read): Params | undefined =>
  request._tag === "Params" ? request.params : request._tag === "Json" && isRecord(request.value) ? request.value : undefined

/**
 * `SessionData`, the session object a voice application request carries: an object in a JSON body,
 * JSON text in a form.
 */
export const sessionData = (params: Params): Params | undefined => {
  const data = params.SessionData
  if (isRecord(data)) return data
  if (typeof data !== "string") return undefined
  try {
    const parsed: unknown = JSON.parse(data)
    return isRecord(parsed) ? parsed : undefined
  } catch {
    return undefined
  }
}

/**
 * The call a voice application request is about: its session token (`Session`, which names the call in
 * Cloudonix's REST API), else `CallSid` ("the Cloudonix session identifier"), else `SessionData.token`.
 */
export const sessionToken = (params: Params): string | undefined =>
  text(params.Session) ?? text(params.CallSid) ?? text(sessionData(params)?.token)

/** An incoming call's routing facts, as the voice application request names them (not yet normalized). */
export interface IncomingCall {
  readonly domain: string | undefined
  readonly to: string | undefined
  readonly from: string
  readonly token: string | undefined
}

/** `Domain` (else `AccountSid`, which Cloudonix sets to the domain too), `To`, `From` and the session token. */
export const incomingCall = (params: Params): IncomingCall => ({
  domain: text(params.Domain) ?? text(params.AccountSid),
  to: text(params.To),
  from: text(params.From) ?? "",
  token: sessionToken(params)
})
