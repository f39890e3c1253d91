import { describe, expect, it } from "@effect/vitest"
import { Vonage } from "../src/index.js"

const NOW = 1_750_000_000_000
const uuid = "63f61863-4a51-4f6b-86e1-46edebcf9356"
const event = (status: string, extra: Record<string, unknown> = {}) => ({
  from: "14155550100",
  to: "447700900000",
  uuid,
  conversation_uuid: "CON-f972836a-550f-45fa-956c-12a2ab5b7d22",
  status,
  direction: "outbound",
  timestamp: "2026-11-25T20:00:00.000Z",
  ...extra
})
const events = (body: unknown) => {
  const parsed = Vonage.Callbacks.toEvents(body, NOW)
  if (parsed._tag === "Invalid") throw new Error(parsed.reason)
  return parsed.events
}

describe("Vonage events", () => {
  it("progress: started, ringing, answered", () => {
    expect(events(event("started"))).toEqual([{ type: "initiated", providerCallId: uuid, at: NOW }])
    expect(events(event("ringing"))).toEqual([{ type: "ringing", providerCallId: uuid, at: NOW }])
    expect(events(event("answered"))).toEqual([{ type: "answered", providerCallId: uuid, at: NOW }])
  })

  it("a completed call ends completed with the seconds talked", () => {
    expect(events(event("completed", { duration: "42", rate: "0.01", price: "0.0042", network: "23410" }))).toEqual([
      { type: "ended", providerCallId: uuid, at: NOW, outcome: "completed", durationSeconds: 42, hangupCause: "completed" }
    ])
  })

  it("every final status has its outcome, with no talk time", () => {
    const cases: Array<[string, string]> = [
      ["busy", "busy"],
      ["rejected", "busy"],
      ["timeout", "no_answer"],
      ["unanswered", "no_answer"],
      ["cancelled", "canceled"],
      ["failed", "failed"]
    ]
    for (const [status, outcome] of cases) {
      expect(events(event(status, { duration: "7" }))).toEqual([
        { type: "ended", providerCallId: uuid, at: NOW, outcome, durationSeconds: 0, hangupCause: status }
      ])
    }
    expect(events(event("failed", { detail: "invalid_number" }))[0]).toMatchObject({ hangupCause: "failed: invalid_number" })
  })

  it("machine detection: a person is an answer by a human; a machine ends the call as voicemail", () => {
    expect(events(event("human"))).toEqual([{ type: "answered", providerCallId: uuid, at: NOW, answeredBy: "human" }])
    expect(events(event("machine", { sub_state: "beep_start" }))).toEqual([
      { type: "answered", providerCallId: uuid, at: NOW, answeredBy: "machine" },
      { type: "ended", providerCallId: uuid, at: NOW, outcome: "voicemail", durationSeconds: 0, hangupCause: "machine: beep_start" }
    ])
  })

  it("leg disconnections, action events and unknown statuses report nothing; a body without a call is refused", () => {
    expect(events(event("disconnected"))).toEqual([])
    expect(events(event("transfer"))).toEqual([])
    expect(events({ uuid, recording_url: "https://api.nexmo.com/v1/files/x" })).toEqual([])
    expect(events(event("something-new"))).toEqual([])
    expect(events({ conversation_uuid: "CON-1", reason: "something failed", timestamp: "2026-11-25T20:00:00.000Z" })).toEqual([])
    expect(Vonage.Callbacks.toEvents({ status: "completed" }, NOW)._tag).toBe("Invalid")
    expect(Vonage.Callbacks.parse("not json", NOW)._tag).toBe("Invalid")
    expect(Vonage.Callbacks.parse("[1]", NOW)._tag).toBe("Invalid")
  })

  it("duplicates and reordering: each event is a pure function of its body", () => {
    const body = JSON.stringify(event("completed", { duration: "5" }))
    expect(Vonage.Callbacks.parse(body, NOW)).toEqual(Vonage.Callbacks.parse(body, NOW))
  })

  it("a looked-up call: in progress until its status is final", () => {
    expect(Vonage.Callbacks.callStatus({ status: "answered" })).toEqual({ _tag: "InProgress" })
    expect(Vonage.Callbacks.callStatus({ status: "ringing" })).toEqual({ _tag: "InProgress" })
    expect(Vonage.Callbacks.callStatus({ status: "completed", duration: "12" })).toEqual({ _tag: "Ended", outcome: "completed", durationSeconds: 12 })
    expect(Vonage.Callbacks.callStatus({ status: "cancelled", duration: "3" })).toEqual({ _tag: "Ended", outcome: "canceled", durationSeconds: 0 })
  })
})
