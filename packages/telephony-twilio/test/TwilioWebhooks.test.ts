import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Twilio } from "../src/index.js"

const form = (params: Record<string, string>) => new TextEncoder().encode(new URLSearchParams(params).toString())

describe("X-Twilio-Signature", () => {
  // The worked example of Twilio's "Webhooks security" page.
  const url = "https://mycompany.com/myapp.php?foo=1&bar=2"
  const params: Twilio.Signature.FormParams = [
    ["To", "+18005551212"],
    ["CallSid", "CA1234567890ABCDE"],
    ["Digits", "1234"],
    ["From", "+12349013030"],
    ["Caller", "+12349013030"]
  ]

  it("matches Twilio's published example (parameters sorted by name)", () => {
    expect(Twilio.Signature.sign("12345", url, params)).toBe("0/KCTR6DLpKmkAf8muzZqo1nDgQ=")
    expect(Twilio.Signature.isValid("12345", "0/KCTR6DLpKmkAf8muzZqo1nDgQ=", url, params)).toBe(true)
  })

  it("refuses another URL, query, parameter, token, or no signature at all", () => {
    const good = "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
    expect(Twilio.Signature.isValid("12345", good, "https://mycompany.com/myapp.php?foo=1&bar=3", params)).toBe(false)
    expect(Twilio.Signature.isValid("12345", good, "https://mycompany.com/myapp.php", params)).toBe(false)
    expect(Twilio.Signature.isValid("12345", good, url, [...params.slice(0, 2), ["Digits", "9999"], ...params.slice(3)])).toBe(false)
    expect(Twilio.Signature.isValid("54321", good, url, params)).toBe(false)
    expect(Twilio.Signature.isValid("12345", undefined, url, params)).toBe(false)
    expect(Twilio.Signature.isValid("12345", "", url, params)).toBe(false)
    expect(Twilio.Signature.isValid("12345", good.slice(0, -1), url, params)).toBe(false)
  })

  it("accepts the URL signed with or without the scheme's default port, as Twilio computes either", () => {
    const signedWithPort = Twilio.Signature.sign("t", "https://calls.example.com:443/cb?x=1", params)
    expect(Twilio.Signature.isValid("t", signedWithPort, "https://calls.example.com/cb?x=1", params)).toBe(true)
    const signedWithout = Twilio.Signature.sign("t", "https://calls.example.com/cb?x=1", params)
    expect(Twilio.Signature.isValid("t", signedWithout, "https://calls.example.com:443/cb?x=1", params)).toBe(true)
    // Another port is another URL.
    expect(Twilio.Signature.isValid("t", Twilio.Signature.sign("t", "https://calls.example.com:8443/cb", params), "https://calls.example.com/cb", params))
      .toBe(false)
  })

  it("signs repeated parameters value by value, sorted", () => {
    const repeated: Twilio.Signature.FormParams = [["B", "2"], ["A", "z"], ["A", "y"]]
    expect(Twilio.Signature.signedData("u", repeated)).toBe("uAyAzB2")
  })

  it.effect("the adapter verifies a request's form body against its full URL", () =>
    Effect.gen(function*() {
      const config = { account_sid: "AC1", auth_token: "12345", amd_enabled: false }
      const rawBody = form(Object.fromEntries(params))
      const request = (signature: string) => ({ method: "POST", url, headers: { "X-Twilio-Signature": signature }, rawBody })
      expect(yield* Twilio.Callbacks.webhooks.verify({ config, request: request("0/KCTR6DLpKmkAf8muzZqo1nDgQ=") })).toBe(true)
      expect(yield* Twilio.Callbacks.webhooks.verify({ config, request: request("AAAA") })).toBe(false)
    }))
})

describe("Twilio call progress → normalized events", () => {
  const at = Date.parse("Tue, 13 Aug 2024 12:00:00 +0000")
  const parse = (params: Record<string, string>) =>
    Twilio.Callbacks.parseStatus(Object.entries({ CallSid: "CA1", Timestamp: "Tue, 13 Aug 2024 12:00:00 +0000", ...params }), 0)

  it("maps progress statuses", () => {
    expect(parse({ CallStatus: "queued" })).toEqual({ _tag: "Events", events: [{ type: "initiated", providerCallId: "CA1", at }] })
    expect(parse({ CallStatus: "initiated" })).toEqual({ _tag: "Events", events: [{ type: "initiated", providerCallId: "CA1", at }] })
    expect(parse({ CallStatus: "ringing" })).toEqual({ _tag: "Events", events: [{ type: "ringing", providerCallId: "CA1", at }] })
    expect(parse({ CallStatus: "in-progress" })).toEqual({ _tag: "Events", events: [{ type: "answered", providerCallId: "CA1", at }] })
    expect(parse({ CallStatus: "in-progress", AnsweredBy: "machine_start" }))
      .toEqual({ _tag: "Events", events: [{ type: "answered", providerCallId: "CA1", at, answeredBy: "machine" }] })
  })

  const outcomes: ReadonlyArray<readonly [Record<string, string>, string]> = [
    [{ CallStatus: "completed" }, "completed"],
    [{ CallStatus: "completed", AnsweredBy: "human" }, "completed"],
    [{ CallStatus: "completed", AnsweredBy: "unknown" }, "completed"],
    [{ CallStatus: "completed", AnsweredBy: "machine_start" }, "voicemail"],
    [{ CallStatus: "completed", AnsweredBy: "machine_end_beep" }, "voicemail"],
    [{ CallStatus: "completed", AnsweredBy: "machine_end_silence" }, "voicemail"],
    [{ CallStatus: "completed", AnsweredBy: "machine_end_other" }, "voicemail"],
    [{ CallStatus: "completed", AnsweredBy: "fax" }, "failed"],
    [{ CallStatus: "busy" }, "busy"],
    [{ CallStatus: "no-answer" }, "no_answer"],
    [{ CallStatus: "failed" }, "failed"],
    [{ CallStatus: "canceled" }, "canceled"]
  ]
  for (const [params, outcome] of outcomes) {
    it(`${JSON.stringify(params)} ends ${outcome}`, () => {
      const parsed = parse({ ...params, CallDuration: "7" })
      expect(parsed._tag).toBe("Events")
      const [event] = (parsed as { events: ReadonlyArray<any> }).events
      expect(event).toMatchObject({ type: "ended", providerCallId: "CA1", outcome, durationSeconds: 7, at })
      expect(event.hangupCause).toContain(params.CallStatus)
    })
  }

  it("refuses callbacks without a call or a status, or with a status Twilio does not have", () => {
    expect(Twilio.Callbacks.parseStatus([["CallStatus", "ringing"]], 0)._tag).toBe("Invalid")
    expect(Twilio.Callbacks.parseStatus([["CallSid", "CA1"]], 0)._tag).toBe("Invalid")
    expect(parse({ CallStatus: "exploded" })._tag).toBe("Invalid")
  })

  it("uses the arrival time when Twilio's timestamp is missing or unreadable", () => {
    expect(Twilio.Callbacks.parseStatus([["CallSid", "CA1"], ["CallStatus", "ringing"], ["Timestamp", "soon"]], 42))
      .toEqual({ _tag: "Events", events: [{ type: "ringing", providerCallId: "CA1", at: 42 }] })
  })
})

describe("TwiML answers", () => {
  it("connects a bidirectional stream with its parameters, then hangs up when the stream ends", () => {
    expect(Twilio.Answer.answer({ _tag: "ConnectMediaStream", url: "wss://h/media/twilio/a&b", parameters: { attempt_id: "7", q: "\"<x>\"" } })).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://h/media/twilio/a&amp;b">` +
        `<Parameter name="attempt_id" value="7"/><Parameter name="q" value="&quot;&lt;x&gt;&quot;"/></Stream></Connect><Hangup/></Response>`
    )
  })

  it("keeps the line open, says a reason and hangs up, or gives a busy signal", () => {
    expect(Twilio.Answer.answer({ _tag: "KeepOpen" })).toContain(`<Pause length="14400"/>`)
    expect(Twilio.Answer.answer({ _tag: "Reject", reason: "Sorry & goodbye" })).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Say>Sorry &amp; goodbye</Say><Hangup/></Response>`
    )
    expect(Twilio.Answer.answer({ _tag: "Reject", reason: "" })).toBe(`<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`)
    expect(Twilio.Answer.answer({ _tag: "Reject", reason: "full", busy: true })).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="busy"/></Response>`
    )
  })
})

describe("Twilio incoming calls", () => {
  const parse = (params: Record<string, string>) =>
    Effect.either(Twilio.Callbacks.webhooks.parseInbound({ request: { method: "POST", url: "u", headers: {}, rawBody: form(params) } }))

  it.effect("reads the routing key from the voice webhook", () =>
    Effect.gen(function*() {
      const parsed = yield* parse({ AccountSid: "AC9", To: "+14155550100", From: "+14155550111", CallSid: "CA5", Direction: "inbound" })
      expect(parsed).toMatchObject({ _tag: "Right", right: { accountId: "AC9", to: "+14155550100", from: "+14155550111", providerCallId: "CA5" } })
      expect((yield* parse({ To: "+1", CallSid: "CA5" }))._tag).toBe("Left")
      expect((yield* parse({ AccountSid: "AC9", To: "+1", CallSid: "CA5", Direction: "outbound-api" }))._tag).toBe("Left")
    }))
})
