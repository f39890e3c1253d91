import type { WebhookRequest } from "@agentline/core/telephony/TelephonyProvider"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck } from "effect"
import { Cloudonix, CloudonixCallbacks, Cxml } from "../src/index.js"

const request = (headers: Record<string, string>) => ({ method: "POST", url: "https://agentline.example/x", headers, rawBody: new Uint8Array() })
const NOW = Date.parse("2026-11-25T12:00:00Z")

const webhook = (body: string, options: { readonly method?: string; readonly url?: string; readonly contentType?: string } = {}): WebhookRequest => ({
  method: options.method ?? "POST",
  url: options.url ?? "https://agentline.example/api/v1/telephony/inbound/cloudonix",
  headers: { "content-type": options.contentType ?? "application/json", "x-cx-apikey": "key-1" },
  rawBody: new TextEncoder().encode(body)
})

const inbound = (input: WebhookRequest) => Effect.either(Cloudonix.provider.webhooks.parseInbound({ request: input }))

/**
 * A voice application request for an incoming call, as Cloudonix posts it: a JSON body (shaped as the
 * "Hello World" example of Cloudonix's documentation shows one), the session as `SessionData`.
 */
const voiceApplicationRequest = {
  ApiVersion: "1",
  CallStatus: "in-progress",
  From: "+14155550123",
  CallSid: "f3bd0737e5784aa7b1d285bc0154db10",
  To: "+14155550100",
  SessionData: {
    id: 10048287,
    domainId: 755,
    destination: "+14155550100",
    callerId: "+14155550123",
    token: "f3bd0737e5784aa7b1d285bc0154db10",
    profile: {},
    callStartTime: 1719354316138,
    status: "processing",
    ringing: false,
    domainNameOrId: "acme.cloudonix.net"
  },
  Domain: "acme.cloudonix.net",
  CallerName: "+14155550123",
  Direction: "inbound",
  AccountSid: "acme.cloudonix.net",
  Session: "f3bd0737e5784aa7b1d285bc0154db10"
}

const expectedCall = { accountId: "acme.cloudonix.net", to: "+14155550100", from: "+14155550123", providerCallId: "f3bd0737e5784aa7b1d285bc0154db10" }

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

  it.effect("an incoming call's voice application request is read as JSON, Cloudonix's encoding (it was refused before)", () =>
    Effect.gen(function*() {
      expect(yield* inbound(webhook(JSON.stringify(voiceApplicationRequest)))).toEqual(Either.right(expectedCall))
      // Whatever the content type says: a body that is JSON is read as JSON.
      expect(yield* inbound(webhook(JSON.stringify(voiceApplicationRequest), { contentType: "text/plain" }))).toEqual(Either.right(expectedCall))
      // Without Session, CallSid (the session identifier) names the call; without both, SessionData's token.
      const { Session: _, ...withoutSession } = voiceApplicationRequest
      expect(yield* inbound(webhook(JSON.stringify(withoutSession)))).toEqual(Either.right(expectedCall))
      const { CallSid: __, ...onlySessionData } = withoutSession
      expect(yield* inbound(webhook(JSON.stringify(onlySessionData)))).toEqual(Either.right(expectedCall))
      // Without Domain, AccountSid names the domain; a bare name is under cloudonix.net.
      const { Domain: ___, ...withoutDomain } = voiceApplicationRequest
      expect(yield* inbound(webhook(JSON.stringify({ ...withoutDomain, AccountSid: "Acme" })))).toEqual(Either.right(expectedCall))
    }))

  it.effect("form-encoded requests and a GET's query are read too", () =>
    Effect.gen(function*() {
      const params = new URLSearchParams({
        CallSid: expectedCall.providerCallId,
        Session: expectedCall.providerCallId,
        Domain: "acme.cloudonix.net",
        To: expectedCall.to,
        From: expectedCall.from,
        SessionData: JSON.stringify(voiceApplicationRequest.SessionData)
      })
      const form = webhook(params.toString(), { contentType: "application/x-www-form-urlencoded" })
      expect(yield* inbound(form)).toEqual(Either.right(expectedCall))
      const get = webhook("", { method: "GET", url: `https://agentline.example/api/v1/telephony/inbound/cloudonix?${params.toString()}` })
      expect(yield* inbound(get)).toEqual(Either.right(expectedCall))
    }))

  it.effect("a request that does not name the domain, the number and the call is refused, saying what is missing", () =>
    Effect.gen(function*() {
      for (const missing of ["To", "Domain"] as const) {
        const { [missing]: _, ...rest } = voiceApplicationRequest
        const withoutAccount = missing === "Domain" ? { ...rest, AccountSid: undefined } : rest
        const refused = yield* inbound(webhook(JSON.stringify(withoutAccount)))
        expect(Either.isLeft(refused) && refused.left.message).toContain("Domain (or AccountSid), To and Session (or CallSid) are required")
      }
      for (const body of ["{not json", "[1, 2]", "\"text\""]) {
        expect(Either.isLeft(yield* inbound(webhook(body)))).toBe(true)
      }
      expect(Either.isLeft(yield* inbound(webhook("")))).toBe(true)
    }))

  describe("session notifications", () => {
    const notification = (status: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ token: "tok-1", domain: "acme.cloudonix.net", status, callStartTime: NOW - 60_000, ...extra })

    const expectedEvents = (meaning: CloudonixCallbacks.Meaning, status: string) => {
      switch (meaning._tag) {
        case "Nothing":
          return []
        case "Progress":
          return [{ type: meaning.event, providerCallId: "tok-1", at: NOW }]
        case "Ends":
          return [{ type: "ended", providerCallId: "tok-1", at: NOW, outcome: meaning.outcome, durationSeconds: 0, hangupCause: status }]
      }
    }

    it.each(Object.entries(CloudonixCallbacks.SESSION_STATES))("session state %s is accepted: %j", (status, meaning) => {
      expect(CloudonixCallbacks.parseStatus(notification(status), NOW)).toEqual({ _tag: "Events", events: expectedEvents(meaning, status) })
    })

    it("the session states that mean something are the documented ones, mapped as the call goes", () => {
      const summary = Object.fromEntries(
        Object.entries(CloudonixCallbacks.SESSION_STATES).map(([state, m]) => [state, m._tag === "Progress" ? m.event : m._tag === "Ends" ? m.outcome : "-"])
      )
      expect(summary).toEqual({
        new: "initiated",
        processing: "-",
        ringing: "ringing",
        answer: "answered",
        connected: "answered",
        external: "-",
        noanswer: "no_answer",
        busy: "busy",
        cancel: "canceled",
        nocredit: "failed",
        error: "failed"
      })
    })

    it.each(Object.entries(CloudonixCallbacks.SESSION_STATES))("session state %s with a callEndTime ends the call", (status, meaning) => {
      const answeredAt = NOW - 42_000
      const answered = CloudonixCallbacks.parseStatus(notification(status, { callAnswerTime: answeredAt, callEndTime: NOW }), NOW)
      expect(answered).toEqual({
        _tag: "Events",
        events: [{
          type: "ended",
          providerCallId: "tok-1",
          at: NOW,
          outcome: meaning._tag === "Ends" ? meaning.outcome : "completed",
          durationSeconds: 42,
          hangupCause: status
        }]
      })
      const never = CloudonixCallbacks.parseStatus(notification(status, { callAnswerTime: null, callEndTime: NOW }), NOW)
      expect(never).toMatchObject({ events: [{ type: "ended", outcome: meaning._tag === "Ends" ? meaning.outcome : "failed", durationSeconds: 0 }] })
    })

    it("the ISO-8601 times are read when the epoch ones are absent; an error is part of the cause", () => {
      const parsed = CloudonixCallbacks.parseStatus(
        notification("connected", { answerTime: "2026-11-25T11:59:00.000Z", endTime: "2026-11-25T12:00:00.000Z", callEndTime: null }),
        NOW
      )
      expect(parsed).toMatchObject({ events: [{ type: "ended", outcome: "completed", durationSeconds: 60 }] })
      expect(CloudonixCallbacks.parseStatus(notification("error", { error: "trunk unreachable" }), NOW))
        .toMatchObject({ events: [{ type: "ended", outcome: "failed", hangupCause: "error: trunk unreachable" }] })
    })

    it("a state Cloudonix may add later is acknowledged and changes nothing, unless the session is disconnected", () => {
      expect(CloudonixCallbacks.parseStatus(notification("transferring"), NOW)).toEqual({ _tag: "Events", events: [] })
      expect(CloudonixCallbacks.parseStatus(notification("transferring", { callAnswerTime: NOW - 5000, callEndTime: NOW }), NOW))
        .toMatchObject({ events: [{ type: "ended", outcome: "completed", durationSeconds: 5 }] })
      // Upper case, and Twilio's words, as some integrations report them.
      expect(CloudonixCallbacks.parseStatus(notification("RINGING"), NOW)).toMatchObject({ events: [{ type: "ringing" }] })
      expect(CloudonixCallbacks.parseStatus(notification("no-answer"), NOW)).toMatchObject({ events: [{ type: "ended", outcome: "no_answer" }] })
    })

    it("property: no session status is ever refused", () => {
      FastCheck.assert(FastCheck.property(FastCheck.string({ minLength: 1 }), (status) => {
        expect(CloudonixCallbacks.parseStatus(notification(status), NOW)._tag).toBe("Events")
      }))
    })

    it("a list of notifications is read in order", () => {
      const list = JSON.stringify([JSON.parse(notification("ringing")), JSON.parse(notification("processing")), JSON.parse(notification("connected"))])
      expect(CloudonixCallbacks.parseStatus(list, NOW)).toEqual({
        _tag: "Events",
        events: [{ type: "ringing", providerCallId: "tok-1", at: NOW }, { type: "answered", providerCallId: "tok-1", at: NOW }]
      })
      expect(CloudonixCallbacks.parseStatus(JSON.stringify([JSON.parse(notification("ringing")), 7]), NOW)).toMatchObject({ _tag: "Invalid" })
    })

    it("a notification that does not name its session or state is refused with a reason", () => {
      expect(CloudonixCallbacks.parseStatus(JSON.stringify({ status: "ringing" }), NOW)).toEqual({
        _tag: "Invalid",
        reason: "Cloudonix session notification without a token"
      })
      expect(CloudonixCallbacks.parseStatus(JSON.stringify({ token: "t" }), NOW)).toEqual({
        _tag: "Invalid",
        reason: "Cloudonix session notification without a status"
      })
      expect(CloudonixCallbacks.parseStatus("{not json", NOW)).toEqual({ _tag: "Invalid", reason: "Cloudonix callback: the body is not valid JSON" })
      expect(CloudonixCallbacks.parseStatus("\"text\"", NOW)).toMatchObject({ _tag: "Invalid" })
    })
  })

  describe("voice application requests (the answer request after the <Redirect>)", () => {
    it.each(Object.entries(CloudonixCallbacks.CALL_STATUSES))("CallStatus %s, as JSON and as a form: %j", (status, meaning) => {
      const expected = meaning._tag === "Nothing"
        ? []
        : meaning._tag === "Progress"
        ? [{ type: meaning.event, providerCallId: "tok-2", at: NOW }]
        : [{ type: "ended", providerCallId: "tok-2", at: NOW, outcome: meaning.outcome, durationSeconds: 9, hangupCause: status }]
      const fields = { ...voiceApplicationRequest, CallSid: "tok-2", Session: "tok-2", CallStatus: status, CallDuration: "9" }
      expect(CloudonixCallbacks.parseStatus(JSON.stringify(fields), NOW)).toEqual({ _tag: "Events", events: expected })
      const form = new URLSearchParams({ CallSid: "CA1", Session: "tok-2", CallStatus: status, CallDuration: "9" }).toString()
      expect(CloudonixCallbacks.parseStatus(form, NOW)).toEqual({ _tag: "Events", events: expected })
    })

    it("name the call by its session token, else by CallSid; refuse what they cannot read", () => {
      expect(CloudonixCallbacks.parseStatus("CallSid=CA9&CallStatus=busy", NOW)).toMatchObject({ events: [{ providerCallId: "CA9", outcome: "busy" }] })
      expect(CloudonixCallbacks.parseStatus("CallStatus=ringing", NOW)).toEqual({ _tag: "Invalid", reason: "Cloudonix request without Session or CallSid" })
      // CallStatus is only documented for the result of a Dial: a request without one reports nothing.
      const { CallStatus: _, ...withoutStatus } = voiceApplicationRequest
      expect(CloudonixCallbacks.parseStatus(JSON.stringify(withoutStatus), NOW)).toEqual({ _tag: "Events", events: [] })
      expect(CloudonixCallbacks.parseStatus("Session=t&CallStatus=dancing", NOW)).toEqual({
        _tag: "Invalid",
        reason: "unknown Cloudonix CallStatus \"dancing\""
      })
    })
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

  it("a CDR without a session or with an unknown disposition is refused", () => {
    expect(CloudonixCallbacks.parseStatus(JSON.stringify({ disposition: "WEIRD", session: { token: "t" } }), NOW)).toMatchObject({ _tag: "Invalid" })
    expect(CloudonixCallbacks.parseStatus(JSON.stringify({ disposition: "ANSWER" }), NOW)).toMatchObject({ _tag: "Invalid" })
  })

  it.each([
    [{ status: "new" }, { _tag: "InProgress" }],
    [{ status: "processing" }, { _tag: "InProgress" }],
    [{ status: "ringing" }, { _tag: "InProgress" }],
    [{ status: "connected", callAnswerTime: NOW - 5000 }, { _tag: "InProgress" }],
    [{ status: "connected", callAnswerTime: NOW - 5000, callEndTime: NOW }, { _tag: "Ended", outcome: "completed", durationSeconds: 5 }],
    [{ status: "cancel", callEndTime: NOW }, { _tag: "Ended", outcome: "canceled", durationSeconds: 0 }],
    [{ status: "noanswer" }, { _tag: "Ended", outcome: "no_answer", durationSeconds: 0 }],
    [{ status: "nocredit" }, { _tag: "Ended", outcome: "failed", durationSeconds: 0 }],
    [{ status: "completed" }, { _tag: "Ended", outcome: "completed", durationSeconds: 0 }]
  ])("a session %j is %j", (session, expected) => {
    expect(CloudonixCallbacks.sessionStatus({ token: "tok-3", ...session })).toEqual(expected)
  })

  it("a call is placed with CXML that fetches the answer once answered; answers are TwiML's", () => {
    expect(Cxml.redirectTo("https://a.example/answer/cloudonix/7?x=1&y=2")).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Redirect method="POST">https://a.example/answer/cloudonix/7?x=1&amp;y=2</Redirect></Response>`
    )
    expect(Cxml.answer({ _tag: "Reject", reason: "", busy: true })).toContain(`<Reject reason="busy"/>`)
  })
})
