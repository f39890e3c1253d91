import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { Cloudonix, CloudonixCallbacks, Cxml } from "../src/index.js"

const request = (headers: Record<string, string>) => ({ method: "POST", url: "https://agentline.example/x", headers, rawBody: new Uint8Array() })
const NOW = Date.parse("2026-11-25T12:00:00Z")

describe("cloudonix webhooks", () => {
  it("are authentic only with the domain's API key in x-cx-apikey", () => {
    expect(Cloudonix.isAuthentic("key-1", request({ "x-cx-apikey": "key-1" }))).toBe(true)
    expect(Cloudonix.isAuthentic("key-1", request({ "X-CX-APIKey": "key-1" }))).toBe(true)
    expect(Cloudonix.isAuthentic("key-1", request({ "x-cx-apikey": "key-2" }))).toBe(false)
    expect(Cloudonix.isAuthentic("key-1", request({ "x-cx-apikey": "" }))).toBe(false)
    expect(Cloudonix.isAuthentic("key-1", request({}))).toBe(false)
    expect(Cloudonix.isAuthentic("key-1", request({ authorization: "Bearer key-1" }))).toBe(false)
  })

  it("property: a key is accepted exactly when it is the configured one", () => {
    FastCheck.assert(FastCheck.property(FastCheck.string({ minLength: 1 }), FastCheck.string({ minLength: 1 }), (key, sent) => {
      expect(Cloudonix.isAuthentic(key, request({ "x-cx-apikey": sent }))).toBe(sent === key)
    }))
  })

  it("status callbacks in Twilio's form name the call by its session token", () => {
    const body = "CallSid=CA1&Session=tok-1&CallStatus=ringing&Domain=acme.cloudonix.net"
    expect(CloudonixCallbacks.parseStatus(body, NOW)).toEqual({ _tag: "Events", events: [{ type: "ringing", providerCallId: "tok-1", at: NOW }] })
    const ended = CloudonixCallbacks.parseStatus("Session=tok-1&CallStatus=completed&CallDuration=42", NOW)
    expect(ended).toMatchObject({ _tag: "Events", events: [{ type: "ended", providerCallId: "tok-1", outcome: "completed", durationSeconds: 42 }] })
    // Without a session, the CallSid names the call.
    expect(CloudonixCallbacks.parseStatus("CallSid=CA9&CallStatus=busy", NOW)).toMatchObject({ events: [{ providerCallId: "CA9", outcome: "busy" }] })
  })

  it.each([
    ["ANSWER", "completed"],
    ["BUSY", "busy"],
    ["CANCEL", "canceled"],
    ["FAILED", "failed"],
    ["CONGESTION", "failed"],
    ["NOANSWER", "no_answer"]
  ])("a CDR with disposition %s ends the call %s", (disposition, outcome) => {
    const cdr = JSON.stringify({ disposition, billsec: 7, session: { token: "tok-2" } })
    expect(CloudonixCallbacks.parseStatus(cdr, NOW)).toEqual({
      _tag: "Events",
      events: [{ type: "ended", providerCallId: "tok-2", at: NOW, outcome, durationSeconds: 7, hangupCause: disposition.toLowerCase() }]
    })
  })

  it("JSON status callbacks are read; what cannot be read is refused with a reason", () => {
    expect(CloudonixCallbacks.parseStatus(JSON.stringify({ token: "tok-3", status: "no-answer" }), NOW))
      .toMatchObject({ _tag: "Events", events: [{ type: "ended", providerCallId: "tok-3", outcome: "no_answer" }] })
    expect(CloudonixCallbacks.parseStatus("{not json", NOW)).toMatchObject({ _tag: "Invalid" })
    expect(CloudonixCallbacks.parseStatus(JSON.stringify({ disposition: "WEIRD", session: { token: "t" } }), NOW)).toMatchObject({ _tag: "Invalid" })
    expect(CloudonixCallbacks.parseStatus(JSON.stringify({ disposition: "ANSWER" }), NOW)).toMatchObject({ _tag: "Invalid" })
    expect(CloudonixCallbacks.parseStatus("CallStatus=ringing", NOW)).toEqual({ _tag: "Invalid", reason: "Cloudonix callback without CallSid" })
    expect(CloudonixCallbacks.parseStatus("Session=t&CallStatus=dancing", NOW)).toMatchObject({ _tag: "Invalid" })
  })

  it.each([
    ["ringing", { _tag: "InProgress" }],
    ["in-progress", { _tag: "InProgress" }],
    ["completed", { _tag: "Ended", outcome: "completed", durationSeconds: 5 }],
    ["canceled", { _tag: "Ended", outcome: "canceled", durationSeconds: 5 }],
    ["NOANSWER", { _tag: "Ended", outcome: "no_answer", durationSeconds: 5 }]
  ])("a session %s is %j", (status, expected) => {
    expect(CloudonixCallbacks.sessionStatus(status, 5)).toEqual(expected)
  })

  it("a call is placed with CXML that fetches the answer once answered; answers are TwiML's", () => {
    expect(Cxml.redirectTo("https://a.example/answer/cloudonix/7?x=1&y=2")).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Redirect method="POST">https://a.example/answer/cloudonix/7?x=1&amp;y=2</Redirect></Response>`
    )
    expect(Cxml.answer({ _tag: "Reject", reason: "", busy: true })).toContain(`<Reject reason="busy"/>`)
  })
})
