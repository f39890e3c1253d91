import { describe, expect, it } from "@effect/vitest"
import { Exotel } from "../src/index.js"

const NOW = Date.parse("2026-11-25T12:00:00Z")
const parse = (body: string) => Exotel.Callbacks.parseStatus(Exotel.Callbacks.paramsOf(body), NOW)

/** A terminal callback as Exotel posts it (form fields). */
const terminal = (status: string, conversation: string) =>
  `CallSid=b6cfaf0e8f7a4e3c&EventType=terminal&Status=${status}&DateUpdated=2026-11-25+17%3A30%3A00&` +
  `From=%2B919876543210&To=&PhoneNumberSid=08047491899&ConversationDuration=${conversation}&Direction=outbound-api&CustomField=agentline-attempt-7`

describe("exotel status callbacks", () => {
  it.each([
    ["completed", "completed", 42],
    ["busy", "busy", 0],
    ["no-answer", "no_answer", 0],
    ["failed", "failed", 0],
    ["canceled", "canceled", 0]
  ] as const)("a terminal callback with Status %s ends the call %s", (status, outcome, talked) => {
    expect(parse(terminal(status, "42"))).toEqual({
      _tag: "Events",
      events: [{ type: "ended", providerCallId: "b6cfaf0e8f7a4e3c", at: NOW, outcome, durationSeconds: talked, hangupCause: status }]
    })
  })

  it("the answered event is progress; ringing too; queued says nothing", () => {
    expect(parse("CallSid=c1&EventType=answered&Status=in-progress")).toEqual({ _tag: "Events", events: [{ type: "answered", providerCallId: "c1", at: NOW }] })
    expect(parse("CallSid=c1&EventType=ringing&Status=ringing")).toEqual({ _tag: "Events", events: [{ type: "ringing", providerCallId: "c1", at: NOW }] })
    expect(parse("CallSid=c1&Status=queued")).toEqual({ _tag: "Events", events: [] })
  })

  it("the default callback (no event subscribed) is the end; Duration stands in for a missing ConversationDuration", () => {
    expect(parse("CallSid=c2&Status=completed&DateUpdated=2026-11-25+17%3A30%3A00&Duration=17")).toMatchObject({
      events: [{ type: "ended", outcome: "completed", durationSeconds: 17 }]
    })
    expect(parse("CallSid=c2&Status=completed")).toMatchObject({ events: [{ outcome: "completed", durationSeconds: 0 }] })
  })

  it("reads a JSON body the same way, and the same callback twice the same way (pure)", () => {
    const json = JSON.stringify({ CallSid: "c3", Status: "busy", EventType: "terminal", Legs: [{ Status: "busy" }] })
    expect(parse(json)).toMatchObject({ events: [{ type: "ended", providerCallId: "c3", outcome: "busy", durationSeconds: 0 }] })
    expect(parse(json)).toEqual(parse(json))
  })

  it("reads a multipart/form-data body like a form", () => {
    const body = [
      "--XyZ",
      "Content-Disposition: form-data; name=\"CallSid\"",
      "",
      "c5",
      "--XyZ",
      "Content-Disposition: form-data; name=\"Status\"",
      "",
      "completed",
      "--XyZ",
      "Content-Disposition: form-data; name=\"ConversationDuration\"",
      "",
      "9",
      "--XyZ--",
      ""
    ].join("\r\n")
    expect(parse(body)).toMatchObject({ events: [{ type: "ended", providerCallId: "c5", outcome: "completed", durationSeconds: 9 }] })
  })

  it("refuses what is not a callback, and statuses it does not know", () => {
    expect(parse("Status=completed")).toMatchObject({ _tag: "Invalid" })
    expect(parse("CallSid=c4")).toMatchObject({ _tag: "Invalid" })
    expect(parse("{not json")).toMatchObject({ _tag: "Invalid" })
    expect(parse("CallSid=c4&Status=on-hold")).toEqual({ _tag: "Invalid", reason: "unknown Exotel call status \"on-hold\"" })
  })

  it("the call details API's statuses tell a live call from an ended one", () => {
    expect(Exotel.Callbacks.callStatus("queued", undefined)).toEqual({ _tag: "InProgress" })
    expect(Exotel.Callbacks.callStatus("ringing", undefined)).toEqual({ _tag: "InProgress" })
    expect(Exotel.Callbacks.callStatus("in-progress", "3")).toEqual({ _tag: "InProgress" })
    expect(Exotel.Callbacks.callStatus("completed", "31")).toEqual({ _tag: "Ended", outcome: "completed", durationSeconds: 31 })
    // Never answered: no talk time, whatever Exotel counted.
    expect(Exotel.Callbacks.callStatus("no-answer", "30")).toEqual({ _tag: "Ended", outcome: "no_answer", durationSeconds: 0 })
    expect(Exotel.Callbacks.callStatus("canceled", undefined)).toEqual({ _tag: "Ended", outcome: "canceled", durationSeconds: 0 })
  })

  it("numbers in Exotel's national form become E.164 (India's trunk 0); others are left alone", () => {
    expect(Exotel.Callbacks.e164("08047491899")).toBe("+918047491899")
    expect(Exotel.Callbacks.e164(" 080-4749-1899 ")).toBe("+918047491899")
    expect(Exotel.Callbacks.e164("+918047491899")).toBe("+918047491899")
    expect(Exotel.Callbacks.e164("918047491899")).toBe("918047491899")
    expect(Exotel.Callbacks.e164("0123")).toBe("0123")
  })
})
