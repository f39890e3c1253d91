/**
 * Cloudonix's call progress as normalized call events (pure).
 *
 * Cloudonix runs Twilio's dialect: a call's status callbacks and its application requests are form
 * posts with `CallSid`, `CallStatus` (`initiated`, `ringing`, `in-progress`, `completed`, `busy`,
 * `no-answer`, `failed`, `canceled`), `CallDuration`, plus `Session` (the session token, which is the
 * call's id in the REST API) and `Domain`. Its CDR webhook is JSON, `{disposition, billsec, session:
 * {token}}`, with a disposition of `ANSWER`, `BUSY`, `CANCEL`, `FAILED`, `CONGESTION` or `NOANSWER`.
 * Both are read; the call is named by its session token wherever Cloudonix gives one.
 */
import type { CallEvent, CallOutcome, CallStatus } from "@agentline/core/telephony/TelephonyProvider"
import { TwilioStatuses } from "@agentline/telephony-twilio"

export type ParsedStatus = TwilioStatuses.ParsedStatus

const DISPOSITIONS: Record<string, CallOutcome> = {
  ANSWER: "completed",
  ANSWERED: "completed",
  BUSY: "busy",
  CANCEL: "canceled",
  FAILED: "failed",
  CONGESTION: "failed",
  NOANSWER: "no_answer"
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined

/** A CDR (JSON) as the call's end. */
const fromCdr = (cdr: Record<string, unknown>, now: number): ParsedStatus => {
  const session = isRecord(cdr.session) ? cdr.session : {}
  const providerCallId = text(session.token) ?? text(cdr.token)
  const disposition = (text(cdr.disposition) ?? "").toUpperCase()
  if (providerCallId === undefined) return { _tag: "Invalid", reason: "Cloudonix CDR without a session token" }
  const outcome = DISPOSITIONS[disposition]
  if (outcome === undefined) return { _tag: "Invalid", reason: `unknown Cloudonix disposition ${JSON.stringify(disposition)}` }
  const billed = Number(cdr.billsec ?? 0)
  return {
    _tag: "Events",
    events: [{
      type: "ended",
      providerCallId,
      at: now,
      outcome,
      durationSeconds: Number.isFinite(billed) && billed > 0 ? billed : 0,
      hangupCause: disposition.toLowerCase()
    }]
  }
}

/** A status callback or CDR (its raw body) as events. */
export const parseStatus = (body: string, now: number): ParsedStatus => {
  const trimmed = body.trim()
  if (trimmed.startsWith("{")) {
    let json: unknown
    try {
      json = JSON.parse(trimmed)
    } catch {
      return { _tag: "Invalid", reason: "Cloudonix callback is not valid JSON" }
    }
    if (!isRecord(json)) return { _tag: "Invalid", reason: "Cloudonix callback is not an object" }
    if (json.disposition !== undefined) return fromCdr(json, now)
    // The JSON form of a status callback: {token, status, duration}.
    const params: Array<readonly [string, string]> = []
    const id = text(json.token) ?? text(json.CallSid)
    const status = text(json.status) ?? text(json.CallStatus)
    if (id !== undefined) params.push(["CallSid", id])
    if (status !== undefined) params.push(["CallStatus", status.toLowerCase()])
    const duration = text(json.duration) ?? text(json.CallDuration)
    if (duration !== undefined) params.push(["CallDuration", duration])
    return TwilioStatuses.parseStatus(params, now)
  }
  const params = [...new URLSearchParams(body).entries()]
  const session = params.find(([name]) => name === "Session")?.[1]
  // The session token names the call in Cloudonix's API, so it is the call's id here too.
  const named = session === undefined || session === ""
    ? params
    : [["CallSid", session] as const, ...params.filter(([name]) => name !== "CallSid")]
  const parsed = TwilioStatuses.parseStatus(named, now)
  return parsed._tag === "Invalid" ? { _tag: "Invalid", reason: parsed.reason.replace("Twilio", "Cloudonix") } : parsed
}

/** A session's status as the port's call status (crash recovery and the stuck-attempt sweeper use it). */
export const sessionStatus = (status: string, durationSeconds: number | null | undefined): CallStatus => {
  const normalized = status.toLowerCase()
  const disposition = DISPOSITIONS[status.toUpperCase()]
  const outcome = disposition ?? TwilioStatuses.outcomeOf(normalized, undefined)
  if (outcome === undefined) return { _tag: "InProgress" }
  return { _tag: "Ended", outcome, durationSeconds: durationSeconds ?? 0 }
}

export type { CallEvent }
