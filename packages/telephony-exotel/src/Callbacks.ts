/**
 * Exotel's call progress as normalized call events (pure).
 *
 * Exotel reports a call to the `StatusCallback` URL given when it was placed: by default once, when it
 * is over; with `StatusCallbackEvents` also when it is answered. Each report carries `CallSid`,
 * `Status` (`completed`, `busy`, `no-answer`, `failed`, `canceled`; `in-progress` for the answered
 * event; `ringing` where Exotel reports ringing), `EventType` (`answered`, `terminal`) and, at the end,
 * `ConversationDuration` (seconds talked). The same fields come back from the call details API
 * (`GET /v1/Accounts/{sid}/Calls/{CallSid}.json`: `Status`, `Duration`), which `get` reads.
 *
 * Exotel posts its callbacks as form fields; JSON and multipart bodies are read too (its documentation
 * shows JSON payloads, and its examples send multipart forms).
 */
import type { CallEvent, CallOutcome, CallStatus } from "@agentline/telephony-kit/TelephonyProvider"

export type Params = ReadonlyMap<string, string>

const OUTCOMES: Readonly<Record<string, CallOutcome>> = {
  completed: "completed",
  busy: "busy",
  "no-answer": "no_answer",
  failed: "failed",
  canceled: "canceled",
  cancelled: "canceled"
}

/** The outcome of a call Exotel reports over with `status`; undefined while it is not over. */
export const outcomeOf = (status: string): CallOutcome | undefined => OUTCOMES[status.trim().toLowerCase()]

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : undefined

/**
 * A request body as flat parameters: form fields, or a JSON object's scalar members (nested objects,
 * such as Exotel's `Legs`, are left out: nothing here reads them). The first value of a name wins.
 */
export const paramsOf = (body: string): Map<string, string> => {
  const params = new Map<string, string>()
  const trimmed = body.trim()
  if (trimmed.startsWith("{")) {
    let json: unknown
    try {
      json = JSON.parse(trimmed)
    } catch {
      return params
    }
    if (typeof json === "object" && json !== null && !Array.isArray(json)) {
      for (const [name, value] of Object.entries(json)) {
        const v = text(value)
        if (v !== undefined && !params.has(name)) params.set(name, v)
      }
    }
    return params
  }
  if (trimmed.startsWith("--")) return multipart(body)
  for (const [name, value] of new URLSearchParams(trimmed)) if (!params.has(name)) params.set(name, value)
  return params
}

/**
 * A `multipart/form-data` body's text fields (the delimiter is its first line). Exotel's own examples
 * send multipart forms; should its callbacks come so, they read like any form.
 */
const multipart = (body: string): Map<string, string> => {
  const params = new Map<string, string>()
  const delimiter = body.slice(0, body.search(/\r?\n/)).trim()
  if (delimiter.length < 3) return params
  for (const part of body.split(delimiter).slice(1)) {
    const headerEnd = part.search(/\r?\n\r?\n/)
    if (headerEnd < 0) continue
    const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(part.slice(0, headerEnd))?.[1]
    const value = part.slice(headerEnd).replace(/^\r?\n\r?\n/, "").replace(/\r?\n$/, "")
    if (name !== undefined && !params.has(name)) params.set(name, value)
  }
  return params
}

/** Seconds as Exotel writes them ("12", "12.0", ""); 0 when absent or not a number. */
export const seconds = (value: string | undefined): number => {
  const n = value === undefined || value.trim() === "" ? Number.NaN : Number(value)
  return Number.isFinite(n) && n > 0 ? Math.round(n) : 0
}

export type ParsedStatus =
  | { readonly _tag: "Events"; readonly events: ReadonlyArray<CallEvent> }
  | { readonly _tag: "Invalid"; readonly reason: string }

/** A status callback's parameters as events. */
export const parseStatus = (params: Params, now: number): ParsedStatus => {
  const providerCallId = params.get("CallSid") ?? params.get("Sid")
  const rawStatus = params.get("Status") ?? params.get("CallStatus")
  if (providerCallId === undefined || providerCallId === "" || rawStatus === undefined) {
    return { _tag: "Invalid", reason: "not an Exotel status callback: CallSid and Status are required" }
  }
  const status = rawStatus.trim().toLowerCase()
  // Exotel's `DateUpdated` (`YYYY-MM-DD HH:mm:ss`) has no time zone: the time of arrival is used.
  const at = now
  const eventType = (params.get("EventType") ?? "").toLowerCase()
  const outcome = outcomeOf(status)
  if (outcome !== undefined) {
    // Talk time only for a call that was answered; Exotel's `Duration` may count the ringing too.
    const talked = outcome === "completed" ? seconds(params.get("ConversationDuration") ?? params.get("Duration")) : 0
    return { _tag: "Events", events: [{ type: "ended", providerCallId, at, outcome, durationSeconds: talked, hangupCause: status }] }
  }
  switch (status) {
    case "in-progress":
    case "answered":
      return { _tag: "Events", events: [{ type: "answered", providerCallId, at }] }
    case "ringing":
      return { _tag: "Events", events: [{ type: "ringing", providerCallId, at }] }
    case "queued":
      return { _tag: "Events", events: [] }
    default:
      return {
        _tag: "Invalid",
        reason: `unknown Exotel call status ${JSON.stringify(rawStatus)}${eventType === "" ? "" : ` (event ${eventType})`}`
      }
  }
}

/** A call as the call details API describes it, as the port's call status (crash recovery uses it). */
export const callStatus = (status: string, duration: string | undefined): CallStatus => {
  const outcome = outcomeOf(status)
  if (outcome === undefined) return { _tag: "InProgress" }
  return { _tag: "Ended", outcome, durationSeconds: outcome === "completed" ? seconds(duration) : 0 }
}

/**
 * A number as Exotel writes it, in a form the address normalizer reads: Exotel's Indian accounts often
 * write numbers in the national form with a trunk 0 (`08047491899`), which is `+918047491899`.
 */
export const e164 = (number: string): string => {
  const digits = number.trim().replace(/[\s()-]/g, "")
  return /^0[1-9][0-9]{9}$/.test(digits) ? `+91${digits.slice(1)}` : number.trim()
}
