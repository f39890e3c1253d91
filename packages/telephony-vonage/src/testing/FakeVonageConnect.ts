/**
 * The fake Vonage's `connect` of a phone number or SIP URI (the NCCO a transfer moves a call to): a new
 * leg dialed as the fake's callees behave, its events posted in order to the connect's `eventUrl`,
 * signed as every Vonage webhook — `started`, `ringing`, then `answered` and (when the person hangs up)
 * `completed` with `duration`, or `busy`, `timeout` (the connect's `timeout` ran out) or `failed`; a
 * caller who hangs up first leaves it `cancelled` (or `completed`, once answered). The caller's call
 * goes on with the rest of its NCCO when the leg is over.
 */
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import * as FakeTimeline from "@agentline/telephony-kit/testing/FakeTimeline"
import * as Crypto from "node:crypto"
import type { Behaviour, FakeVonageCall } from "./FakeVonageCall.js"

/** A signed JSON POST as Vonage sends its webhooks; answers the response's status and body. */
export const postSigned = (url: string, body: string, token: string | undefined) =>
  FakeHttp.postJson(url, body, { "user-agent": "Vonage-Voice/1.0", ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) })

/** Plays the connected leg out; resolves when it is over. */
export const connectLeg = async (
  call: FakeVonageCall,
  action: Readonly<Record<string, unknown>>,
  endpoint: { readonly type: "phone"; readonly number: string } | { readonly type: "sip"; readonly uri: string },
  dialed: (to: string) => Behaviour
): Promise<void> => {
  const target = endpoint.type === "phone" ? `+${endpoint.number}` : endpoint.uri
  call.dialedTo = target
  const behaviour = dialed(target)
  const timeline = FakeTimeline.make(call.secondMillis)
  const uuid = Crypto.randomUUID()
  const eventUrl = Array.isArray(action.eventUrl) && typeof action.eventUrl[0] === "string" ? action.eventUrl[0] : undefined
  const event = async (status: string, extra: Record<string, unknown> = {}) => {
    if (eventUrl === undefined) return
    const body = JSON.stringify({
      from: typeof action.from === "string" ? action.from : call.to,
      to: endpoint.type === "phone" ? endpoint.number : endpoint.uri,
      uuid,
      conversation_uuid: call.conversationUuid,
      status,
      direction: "outbound",
      timestamp: new Date().toISOString(),
      ...extra
    })
    await postSigned(eventUrl, body, call.sign(body))
  }
  /** Waits `seconds`, unless the caller hangs up first: false then. */
  const wait = async (seconds: number) => {
    await Promise.race([timeline.after(seconds), call.ended])
    return !call.isOver
  }
  await event("started")
  if (!(await wait(0.1))) return event("cancelled")
  if (behaviour.answer === "failed" || behaviour.answer === "invalid") return event("failed")
  await event("ringing")
  if (behaviour.answer === "no-answer") {
    if (!(await wait(Number(action.timeout ?? 60)))) return event("cancelled")
    return event("timeout")
  }
  if (!(await wait(behaviour.ringSeconds ?? 1))) return event("cancelled")
  if (behaviour.answer === "busy") return event("busy")
  const answeredAt = Date.now()
  await event("answered")
  await wait(behaviour.talkSeconds ?? 2)
  timeline.stop()
  await event("completed", { duration: String(Math.max(1, Math.round((Date.now() - answeredAt) / call.secondMillis))) })
}
