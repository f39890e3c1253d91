/**
 * Plivo-compatible callbacks as normalized events (pure). Plivo POSTs form parameters:
 *
 * - ring_url:     `Event=Ring`, `CallStatus=ringing`;
 * - answer_url:   `Event=StartApp`, `CallStatus=in-progress` (outbound) or `ringing` (an inbound call);
 * - machine_detection_url: `Event=MachineDetection`, `Machine=true|false`;
 * - hangup_url:   `Event=Hangup`, `CallStatus` ∈ completed | busy | failed | timeout | no-answer | cancel,
 *                 `Duration`, `BillDuration`, `HangupCauseName`, `HangupCauseCode`, `HangupSource`,
 *                 `AnswerTime` (when it was answered).
 *
 * Every callback carries `CallUUID`, the id we keep for a call (outbound ones also the `RequestUUID`
 * the Call API answered with, from which `Calls.ts` learns the call uuid). A machine verdict ends
 * the call as `voicemail` at once: we ask the carrier to hang up on machines, so its hang-up notice
 * that follows changes nothing (the consumer ignores events after `ended`).
 */
import type { CallEvent, CallOutcome, CallStatus } from "@agentline/telephony-kit/TelephonyProvider"
import type { Params } from "./Signature.js"

export const paramsOf = (rawBody: Uint8Array): Params => [...new URLSearchParams(new TextDecoder().decode(rawBody)).entries()]

export const param = (params: Params, name: string): string | undefined => {
  for (const [key, value] of params) if (key === name) return value
  return undefined
}

/** The id we track a call by: its call uuid (the request uuid only when a callback has no other). */
export const trackingId = (params: Params): string | undefined =>
  nonEmpty(param(params, "CallUUID")) ?? nonEmpty(param(params, "RequestUUID"))

const nonEmpty = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value)

/** Final `CallStatus` values of the hangup callback and the outcome each means. */
export const finalStatuses: Readonly<Record<string, CallOutcome>> = {
  "completed": "completed",
  "busy": "busy",
  "no-answer": "no_answer",
  // Plivo's "timeout" is the ring timeout or a carrier that never answered the setup.
  "timeout": "no_answer",
  "cancel": "canceled",
  "canceled": "canceled",
  "cancelled": "canceled",
  "failed": "failed"
}

/** The outcome of a hang-up cause name when the status is missing (FreeSWITCH names and Plivo's own). */
export const outcomeOfCause = (cause: string, answered: boolean): CallOutcome => {
  const c = cause.toLowerCase().replace(/[_\s]+/g, " ").trim()
  if (answered) return "completed"
  if (c.includes("busy") || c.includes("rejected")) return "busy"
  if (c.includes("no answer") || c.includes("timeout") || c.includes("no user response")) return "no_answer"
  if (c.includes("cancel")) return "canceled"
  if (c === "normal clearing" || c === "normal hangup" || c === "end of xml instructions") return "completed"
  return "failed"
}

const seconds = (value: string | undefined): number => {
  const n = Number(value)
  return Number.isFinite(n) && n > 0 ? n : 0
}

/** The events of one callback at `at` (epoch ms); none for notices we do not track. */
export const toEvents = (params: Params, at: number): ReadonlyArray<CallEvent> => {
  const providerCallId = trackingId(params)
  if (providerCallId === undefined) return []
  const event = (param(params, "Event") ?? "").toLowerCase()
  const status = (param(params, "CallStatus") ?? "").toLowerCase()
  const cause = nonEmpty(param(params, "HangupCauseName")) ?? nonEmpty(param(params, "HangupCause"))

  if (event === "machinedetection") {
    return param(params, "Machine")?.toLowerCase() === "true"
      ? [{ type: "ended", providerCallId, at, outcome: "voicemail", durationSeconds: 0, hangupCause: "answering machine" }]
      : []
  }
  if (event === "hangup" || finalStatuses[status] !== undefined) {
    const answered = nonEmpty(param(params, "AnswerTime")) !== undefined || seconds(param(params, "BillDuration")) > 0
    const outcome = finalStatuses[status] ?? outcomeOfCause(cause ?? "", answered)
    return [{
      type: "ended",
      providerCallId,
      at,
      outcome,
      durationSeconds: outcome === "completed" ? seconds(param(params, "Duration")) : 0,
      ...(cause !== undefined ? { hangupCause: cause } : {})
    }]
  }
  if (event === "ring" || status === "ringing") return [{ type: "ringing", providerCallId, at }]
  if (event === "startapp" || status === "in-progress" || status === "answered") return [{ type: "answered", providerCallId, at }]
  return []
}

/** A number as Plivo writes it (E.164 digits without `+`) back in E.164; SIP URIs and others unchanged. */
export const fromWire = (address: string): string => (/^\d{8,15}$/.test(address) ? `+${address}` : address)

/** An inbound call, or why the request is not one (a hang-up notice sent to the answer URL, ...). */
export const inboundOf = (
  params: Params,
  url: string
): { readonly _tag: "Inbound"; readonly accountId: string; readonly to: string; readonly from: string; readonly providerCallId: string } | {
  readonly _tag: "NotInbound"
  readonly reason: string
} => {
  const callUuid = nonEmpty(param(params, "CallUUID"))
  const to = nonEmpty(param(params, "To"))
  if (callUuid === undefined || to === undefined) return { _tag: "NotInbound", reason: "it names no CallUUID and To" }
  const direction = (param(params, "Direction") ?? "inbound").toLowerCase()
  if (direction !== "inbound") return { _tag: "NotInbound", reason: `it is about an ${direction} call` }
  const event = (param(params, "Event") ?? "StartApp").toLowerCase()
  const status = (param(params, "CallStatus") ?? "ringing").toLowerCase()
  if (event !== "startapp" || finalStatuses[status] !== undefined) {
    return { _tag: "NotInbound", reason: `it is a ${param(params, "Event") ?? status} notice, not a new call` }
  }
  // Plivo does not document an account parameter; we put it on the application's answer URL.
  const query = new URLSearchParams(url.split("#")[0]!.split("?")[1] ?? "")
  const accountId = nonEmpty(param(params, "AuthID")) ?? nonEmpty(param(params, "ParentAuthID")) ?? nonEmpty(query.get("account_id") ?? undefined)
  if (accountId === undefined) return { _tag: "NotInbound", reason: "it names no account (AuthID, or account_id on the answer URL)" }
  return { _tag: "Inbound", accountId, to: fromWire(to), from: fromWire(param(params, "From") ?? ""), providerCallId: callUuid }
}

/** A call detail record (`GET /Call/{uuid}/` of a finished call) as what we know of the call. */
export const statusOfRecord = (record: {
  readonly answer_time?: string | null | undefined
  readonly bill_duration?: number | null | undefined
  readonly call_duration?: number | null | undefined
  readonly hangup_cause_name?: string | null | undefined
}): CallStatus => {
  const answered = (record.answer_time ?? "") !== "" || (record.bill_duration ?? 0) > 0
  const outcome = outcomeOfCause(record.hangup_cause_name ?? "", answered)
  return { _tag: "Ended", outcome, durationSeconds: outcome === "completed" ? Math.max(0, record.call_duration ?? 0) : 0 }
}
