/**
 * What the fake Telnyx refuses, and how (pure): Telnyx's error codes and titles for the requests the
 * adapter makes, checked the way the API checks them (see docs/providers/telnyx.md for what comes
 * from Telnyx's documentation and what is the fake's own guess).
 */
import type { Behaviour, Stream } from "./FakeCall.js"

export interface Refusal {
  readonly _tag: "Refusal"
  readonly status: number
  readonly code: string
  readonly title: string
  readonly detail: string
  readonly pointer?: string
}

const refusal = (status: number, code: string, title: string, detail: string, pointer?: string): Refusal => ({
  _tag: "Refusal",
  status,
  code,
  title,
  detail,
  ...(pointer !== undefined ? { pointer } : {})
})

export const unauthenticated = refusal(401, "10009", "Authentication failed", "The required authentication headers were either invalid or not included in the request.")
export const notFound = refusal(404, "10005", "Resource not found", "The requested resource or URL could not be found.")
export const invalidJson = refusal(400, "10023", "Invalid JSON", "The supplied JSON is not valid.")
export const callEnded = refusal(422, "90018", "Call has already ended", "This call is no longer active and can't receive commands.")
export const unknownConnection = refusal(422, "10017", "Associated resource does not exist", "The connection_id does not match a Call Control Application of this account.", "/connection_id")
export const missing = (field: string) => refusal(422, "10004", "Missing required parameter", `The '${field}' parameter is required.`, `/${field}`)
export const bad = (detail: string, field?: string) => refusal(422, "10015", "Bad Request", detail, field === undefined ? undefined : `/${field}`)

export const transient = (status: number): Refusal =>
  status === 429
    ? refusal(429, "10011", "Too many requests", "You have exceeded the maximum number of allowed requests.")
    : refusal(status, "10007", "Unexpected error", "An unexpected error occured.")

const E164 = /^\+[1-9][0-9]{7,14}$/
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const TRACKS = ["inbound_track", "outbound_track", "both_tracks"]
const CODECS = ["PCMU", "PCMA", "G722", "OPUS", "AMR-WB", "L16"]
const RATES = [8000, 16000, 22050, 24000, 48000]
const AMD = ["premium", "detect", "detect_beep", "detect_words", "greeting_end", "disabled"]

const isUrl = (value: unknown, protocols: ReadonlyArray<string>) => {
  if (typeof value !== "string" || value.length > 2000) return false
  try {
    return protocols.includes(new URL(value).protocol)
  } catch {
    return false
  }
}

const oneOf = (body: Record<string, any>, field: string, values: ReadonlyArray<unknown>): Refusal | undefined =>
  body[field] === undefined || values.includes(body[field])
    ? undefined
    : bad(`'${field}' must be one of ${values.join(", ")}.`, field)

/** The stream a dial or answer asks for, or what is wrong with it; undefined without a `stream_url`. */
export const checkStream = (body: Record<string, any>): Stream | Refusal | undefined => {
  if (body.stream_url === undefined) return undefined
  if (!isUrl(body.stream_url, ["ws:", "wss:"])) {
    return refusal(422, "10003", "Invalid URL", "The URL provided was invalid, malformed, or too long.", "/stream_url")
  }
  const wrong = oneOf(body, "stream_track", TRACKS) ??
    oneOf(body, "stream_bidirectional_mode", ["mp3", "rtp"]) ??
    oneOf(body, "stream_bidirectional_codec", CODECS) ??
    oneOf(body, "stream_codec", [...CODECS, "default"]) ??
    oneOf(body, "stream_bidirectional_sampling_rate", RATES)
  if (wrong !== undefined) return wrong
  // What Telnyx streams to us: the requested codec (the call's own, PCMU here, by default).
  const codec = body.stream_codec === undefined || body.stream_codec === "default" ? "PCMU" : body.stream_codec
  if (codec !== "PCMU" && codec !== "PCMA" && codec !== "L16") return bad(`The fake streams PCMU, PCMA or L16, not ${codec}.`, "stream_codec")
  return {
    url: body.stream_url,
    bothTracks: body.stream_track === "both_tracks",
    format: { encoding: codec, sampleRate: codec === "L16" ? body.stream_bidirectional_sampling_rate ?? 8000 : 8000 }
  }
}

/** A dial's body checked as `POST /v2/calls` does: the application it names and its stream, or the refusal. */
export const checkDial = <Application extends { readonly webhookEventUrl: string | null }>(
  body: Record<string, any>,
  account: {
    readonly application: (id: string) => Application | undefined
    readonly owns: (number: string) => boolean
    readonly ownsAny: boolean
    readonly behaviour: (number: string) => Behaviour | undefined
  }
): { readonly _tag: "Dial"; readonly application: Application; readonly stream: Stream | undefined } | Refusal => {
  for (const field of ["connection_id", "to", "from"]) {
    if (typeof body[field] !== "string" || body[field] === "") return missing(field)
  }
  const application = account.application(body.connection_id)
  if (application === undefined) return unknownConnection
  const to: string = body.to
  if (!to.startsWith("sip:") && !E164.test(to)) {
    return refusal(422, "10016", "Phone number must be in +E.164 format", `The 'to' number ${to} must be in +E.164 format.`, "/to")
  }
  if (account.behaviour(to)?.answer === "invalid") {
    return refusal(422, "10002", "Invalid phone number", `The phone number ${to} is invalid.`, "/to")
  }
  if (!E164.test(body.from)) {
    return refusal(422, "10016", "Phone number must be in +E.164 format", `The 'from' number ${body.from} must be in +E.164 format.`, "/from")
  }
  if (account.ownsAny && !account.owns(body.from)) {
    return refusal(422, "10002", "Invalid phone number", `The 'from' number ${body.from} is not a number of this account.`, "/from")
  }
  for (const field of ["webhook_url", "webhook_url_failover"]) {
    if (body[field] !== undefined && !isUrl(body[field], ["http:", "https:"])) {
      return refusal(422, "10003", "Invalid URL", "The URL provided was invalid, malformed, or too long.", `/${field}`)
    }
  }
  if (body.client_state !== undefined && (typeof body.client_state !== "string" || !BASE64.test(body.client_state))) {
    return bad("'client_state' must be a valid Base-64 encoded string.", "client_state")
  }
  if (body.timeout_secs !== undefined && (!Number.isInteger(body.timeout_secs) || body.timeout_secs < 5 || body.timeout_secs > 600)) {
    return bad("'timeout_secs' must be an integer between 5 and 600.", "timeout_secs")
  }
  const wrong = oneOf(body, "answering_machine_detection", AMD) ?? oneOf(body, "webhook_url_method", ["POST", "GET"])
  if (wrong !== undefined) return wrong
  const stream = checkStream(body)
  if (stream !== undefined && "_tag" in stream) return stream
  return { _tag: "Dial", application, stream }
}

/** A Call Control Application update as Telnyx checks it: the name is required even on a partial update. */
export const checkApplicationUpdate = (body: Record<string, any>): Refusal | undefined => {
  if (typeof body.application_name !== "string" || body.application_name === "") return missing("application_name")
  if (body.webhook_event_url !== undefined && body.webhook_event_url !== null && !isUrl(body.webhook_event_url, ["http:", "https:"])) {
    return refusal(422, "10003", "Invalid URL", "The URL provided was invalid, malformed, or too long.", "/webhook_event_url")
  }
  return undefined
}

/** A transfer command's body checked as `actions/transfer` does (the call must be answered); undefined when it is right. */
export const checkTransfer = (body: Record<string, any>): Refusal | undefined => {
  if (typeof body.to !== "string" || body.to === "") return missing("to")
  if (!body.to.startsWith("sip:") && !body.to.startsWith("sips:") && !E164.test(body.to)) {
    return refusal(422, "10016", "Phone number must be in +E.164 format", `The 'to' number ${body.to} must be in +E.164 format.`, "/to")
  }
  if (body.from !== undefined && (typeof body.from !== "string" || !E164.test(body.from))) {
    return refusal(422, "10016", "Phone number must be in +E.164 format", `The 'from' number ${String(body.from)} must be in +E.164 format.`, "/from")
  }
  if (body.webhook_url !== undefined && !isUrl(body.webhook_url, ["http:", "https:"])) {
    return refusal(422, "10003", "Invalid URL", "The URL provided was invalid, malformed, or too long.", "/webhook_url")
  }
  for (const field of ["client_state", "target_leg_client_state"]) {
    if (body[field] !== undefined && (typeof body[field] !== "string" || !BASE64.test(body[field]))) {
      return bad(`'${field}' must be a valid Base-64 encoded string.`, field)
    }
  }
  if (body.timeout_secs !== undefined && (!Number.isInteger(body.timeout_secs) || body.timeout_secs < 5 || body.timeout_secs > 600)) {
    return bad("'timeout_secs' must be an integer between 5 and 600.", "timeout_secs")
  }
  return oneOf(body, "webhook_url_method", ["POST", "GET"])
}
