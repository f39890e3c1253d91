/**
 * Cloudonix's call progress as normalized call events (pure).
 *
 * Three kinds of request report on a call; the parameters say which (see `Requests.ts` for the encodings):
 *
 * - a session notification, posted to the `callback` a call was placed with. Cloudonix's "Session" data
 *   model page says the session object "is also used in the session status notification callback": its
 *   `token` names the call, its `status` is one of Cloudonix's session states (`SESSION_STATES`), and
 *   `callAnswerTime` / `callEndTime` (epoch milliseconds; `answerTime` / `endTime` in ISO-8601) say when
 *   it was answered and disconnected. A state that says nothing of the call's progress (`processing`,
 *   `external`, one this adapter does not know) is acknowledged and changes nothing; a session with a
 *   `callEndTime` is over, whatever its state.
 * - a voice application request (the answer URL the placed CXML redirects to): `CallStatus` in the
 *   Twilio words that page lists (`CALL_STATUSES`), the call named by `Session`.
 * - a CDR, `{disposition, billsec, session: {token}}`, with a disposition of `ANSWER`, `BUSY`, `CANCEL`,
 *   `FAILED`, `CONGESTION` or `NOANSWER` (inferred from integrations that receive them, not documented).
 */
import type { CallEvent, CallOutcome, CallStatus } from "@agentline/core/telephony/TelephonyProvider"
import { isRecord, type Params, read, sessionToken, text } from "./Requests.js"

export type ParsedStatus =
  | { readonly _tag: "Events"; readonly events: ReadonlyArray<CallEvent> }
  | { readonly _tag: "Invalid"; readonly reason: string }

/** What a reported state says of the call. */
export type Meaning =
  | { readonly _tag: "Progress"; readonly event: "initiated" | "ringing" | "answered" }
  | { readonly _tag: "Ends"; readonly outcome: CallOutcome }
  /** Nothing about the call's progress: acknowledged, no event. */
  | { readonly _tag: "Nothing" }

const progress = (event: "initiated" | "ringing" | "answered"): Meaning => ({ _tag: "Progress", event })
const ends = (outcome: CallOutcome): Meaning => ({ _tag: "Ends", outcome })
const NOTHING: Meaning = { _tag: "Nothing" }

/** Cloudonix's session states (a session's `status`) and what each says of the call. */
export const SESSION_STATES: Readonly<Record<string, Meaning>> = {
  new: progress("initiated"),
  // The voice application is being run: before the answer or after it alike, so it tells nothing.
  processing: NOTHING,
  ringing: progress("ringing"),
  answer: progress("answered"),
  connected: progress("answered"),
  // The call is handled outside the voice application (bridged, transferred): still up, nothing new.
  external: NOTHING,
  noanswer: ends("no_answer"),
  busy: ends("busy"),
  cancel: ends("canceled"),
  nocredit: ends("failed"),
  error: ends("failed")
}

/**
 * `CallStatus` of a voice application request ("queued, ringing, in-progress, completed, busy,
 * canceled, failed, no-answer or unknown"), plus Twilio's `initiated`, the dialect CXML comes from.
 */
export const CALL_STATUSES: Readonly<Record<string, Meaning>> = {
  queued: progress("initiated"),
  initiated: progress("initiated"),
  ringing: progress("ringing"),
  "in-progress": progress("answered"),
  completed: ends("completed"),
  busy: ends("busy"),
  canceled: ends("canceled"),
  failed: ends("failed"),
  "no-answer": ends("no_answer"),
  unknown: NOTHING
}

const DISPOSITIONS: Readonly<Record<string, CallOutcome>> = {
  ANSWER: "completed",
  ANSWERED: "completed",
  BUSY: "busy",
  CANCEL: "canceled",
  FAILED: "failed",
  CONGESTION: "failed",
  NOANSWER: "no_answer"
}

const lookup = <A>(table: Readonly<Record<string, A>>, key: string): A | undefined => (Object.hasOwn(table, key) ? table[key] : undefined)

/** What a session's `status` says: a session state, else (sessions may use them too) a `CallStatus`; unknown: nothing. */
export const sessionMeaning = (status: string): Meaning => {
  const key = status.toLowerCase()
  return lookup(SESSION_STATES, key) ?? lookup(CALL_STATUSES, key) ?? NOTHING
}

const seconds = (value: unknown): number => {
  const n = Number(value ?? 0)
  return Number.isFinite(n) && n > 0 ? Math.round(n) : 0
}

/** A session's time: epoch milliseconds (`callAnswerTime`), else ISO-8601 (`answerTime`). */
const timeOf = (millis: unknown, iso: unknown): number | undefined => {
  if (typeof millis === "number" && Number.isFinite(millis) && millis > 0) return millis
  const parsed = typeof iso === "string" ? Date.parse(iso) : Number.NaN
  return Number.isFinite(parsed) ? parsed : undefined
}

const ended = (
  providerCallId: string,
  at: number,
  outcome: CallOutcome,
  durationSeconds: number,
  hangupCause: string
): CallEvent => ({ type: "ended", providerCallId, at, outcome, durationSeconds, hangupCause })

/** A session object (a notification, or the session the REST API answers) as events. */
export const fromSession = (session: Params, now: number): ParsedStatus => {
  const providerCallId = text(session.token)
  const status = text(session.status)
  if (providerCallId === undefined) return { _tag: "Invalid", reason: "Cloudonix session notification without a token" }
  if (status === undefined) return { _tag: "Invalid", reason: "Cloudonix session notification without a status" }
  const answeredAt = timeOf(session.callAnswerTime, session.answerTime)
  const endedAt = timeOf(session.callEndTime, session.endTime)
  const talked = answeredAt !== undefined && endedAt !== undefined ? seconds((endedAt - answeredAt) / 1000) : 0
  const error = text(session.error)
  const cause = error === undefined ? status : `${status}: ${error}`
  const meaning = sessionMeaning(status)
  if (meaning._tag === "Ends") return { _tag: "Events", events: [ended(providerCallId, now, meaning.outcome, talked, cause)] }
  // Disconnected in a state that is not an ending of its own: it talked if it was answered.
  if (endedAt !== undefined) {
    return { _tag: "Events", events: [ended(providerCallId, now, answeredAt !== undefined ? "completed" : "failed", talked, cause)] }
  }
  if (meaning._tag === "Progress") return { _tag: "Events", events: [{ type: meaning.event, providerCallId, at: now }] }
  return { _tag: "Events", events: [] }
}

/**
 * A voice application request (or a Twilio-style status callback) as events: `CallStatus`, `CallDuration`.
 * Cloudonix documents `CallStatus` as set "when handling the result of a Dial verb": a request without
 * one reports nothing.
 */
const fromCallStatus = (params: Params, now: number): ParsedStatus => {
  const providerCallId = sessionToken(params)
  const status = text(params.CallStatus)
  if (providerCallId === undefined) return { _tag: "Invalid", reason: "Cloudonix request without Session or CallSid" }
  if (status === undefined) return { _tag: "Events", events: [] }
  const meaning = lookup(CALL_STATUSES, status.toLowerCase())
  if (meaning === undefined) return { _tag: "Invalid", reason: `unknown Cloudonix CallStatus ${JSON.stringify(status)}` }
  switch (meaning._tag) {
    case "Nothing":
      return { _tag: "Events", events: [] }
    case "Progress":
      return { _tag: "Events", events: [{ type: meaning.event, providerCallId, at: now }] }
    case "Ends":
      return { _tag: "Events", events: [ended(providerCallId, now, meaning.outcome, seconds(params.CallDuration), status.toLowerCase())] }
  }
}

/** A CDR as the call's end. */
const fromCdr = (cdr: Params, now: number): ParsedStatus => {
  const session = isRecord(cdr.session) ? cdr.session : {}
  const providerCallId = text(session.token) ?? text(cdr.token)
  const disposition = (text(cdr.disposition) ?? "").toUpperCase()
  if (providerCallId === undefined) return { _tag: "Invalid", reason: "Cloudonix CDR without a session token" }
  const outcome = lookup(DISPOSITIONS, disposition)
  if (outcome === undefined) return { _tag: "Invalid", reason: `unknown Cloudonix disposition ${JSON.stringify(disposition)}` }
  return { _tag: "Events", events: [ended(providerCallId, now, outcome, seconds(cdr.billsec), disposition.toLowerCase())] }
}

/** One report, by what it carries: a CDR's disposition, a voice application request's parameters, else a session. */
const fromParams = (params: Params, now: number): ParsedStatus =>
  params.disposition !== undefined
    ? fromCdr(params, now)
    : params.CallStatus !== undefined || params.Session !== undefined || params.CallSid !== undefined
    ? fromCallStatus(params, now)
    : fromSession(params, now)

const fromJson = (value: unknown, now: number): ParsedStatus => {
  if (isRecord(value)) return fromParams(value, now)
  if (!Array.isArray(value)) return { _tag: "Invalid", reason: "Cloudonix callback is not an object" }
  // A list of reports (session notifications may come as a one-element list): all of them, in order.
  const events: Array<CallEvent> = []
  for (const item of value) {
    if (!isRecord(item)) return { _tag: "Invalid", reason: "Cloudonix callback is not a list of objects" }
    const parsed = fromParams(item, now)
    if (parsed._tag === "Invalid") return parsed
    events.push(...parsed.events)
  }
  return { _tag: "Events", events }
}

/** A status callback, answer request or CDR (its raw body) as events. */
export const parseStatus = (body: string, now: number): ParsedStatus => {
  const request = read(body)
  switch (request._tag) {
    case "Invalid":
      return { _tag: "Invalid", reason: `Cloudonix callback: ${request.reason}` }
    case "Params":
      return fromParams(request.params, now)
    case "Json":
      return fromJson(request.value, now)
  }
}

/** A session, as the REST API answers it, as the port's call status (crash recovery and the stuck-attempt sweeper use it). */
export const sessionStatus = (session: Params): CallStatus => {
  const parsed = fromSession(session, 0)
  const end = parsed._tag === "Events" ? parsed.events.find((e) => e.type === "ended") : undefined
  return end?.type === "ended" ? { _tag: "Ended", outcome: end.outcome, durationSeconds: end.durationSeconds } : { _tag: "InProgress" }
}

export type { CallEvent }
