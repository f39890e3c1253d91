import type { CallEvent } from "@agentline/telephony-kit/TelephonyProvider"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Telnyx } from "../src/index.js"

const Events = Telnyx.Callbacks
const ID = "v3:call-1"
const T0 = Date.parse("2026-01-01T10:00:00.000Z")
const iso = (offsetMs: number) => new Date(T0 + offsetMs).toISOString()

const webhook = (event_type: string, payload: Record<string, unknown>, offsetMs = 0) =>
  Either.getOrThrow(Events.decodeWebhook(new TextEncoder().encode(JSON.stringify({
    data: { record_type: "event", event_type, id: "e-1", occurred_at: iso(offsetMs), payload: { call_control_id: ID, ...payload } },
    meta: { attempt: 1, delivered_to: "https://calls.example.com/cb" }
  }))))

const events = (type: string, payload: Record<string, unknown> = {}, offsetMs = 0, answeredAt?: number): ReadonlyArray<CallEvent> =>
  Events.toEvents(webhook(type, payload, offsetMs), { answeredAt }, 0)

describe("telnyx webhooks as call events", () => {
  it("progress: initiated and answered, at the time Telnyx says", () => {
    expect(events("call.initiated", { direction: "outgoing", state: "bridging" })).toEqual([{ type: "initiated", providerCallId: ID, at: T0 }])
    expect(events("call.answered", {}, 1500)).toEqual([{ type: "answered", providerCallId: ID, at: T0 + 1500 }])
  })

  it("maps every hang-up cause of an unanswered call to its outcome (matrix)", () => {
    const matrix: ReadonlyArray<readonly [string, string]> = [
      ["user_busy", "busy"],
      ["timeout", "no_answer"],
      ["no_answer", "no_answer"],
      ["originator_cancel", "canceled"],
      ["call_rejected", "failed"],
      ["not_found", "failed"],
      ["unspecified", "failed"],
      ["some_new_cause", "failed"],
      ["normal_clearing", "completed"],
      ["time_limit", "completed"]
    ]
    for (const [cause, outcome] of matrix) {
      const [ended] = events("call.hangup", { hangup_cause: cause, sip_hangup_cause: "486" })
      expect(ended).toMatchObject({ type: "ended", outcome, hangupCause: `${cause} (SIP 486)` })
    }
    const [noCause] = events("call.hangup")
    expect(noCause).toMatchObject({ outcome: "failed", durationSeconds: 0 })
    expect(noCause).not.toHaveProperty("hangupCause")
  })

  it("an answered call is completed whatever the cause, its talk time counted from the answer", () => {
    const [ended] = events("call.hangup", { hangup_cause: "user_busy", sip_hangup_cause: "unspecified" }, 42_400, T0 + 2_000)
    expect(ended).toEqual({ type: "ended", providerCallId: ID, at: T0 + 42_400, outcome: "completed", durationSeconds: 40.4, hangupCause: "user_busy" })
  })

  it("without the answer seen here, an answered call's time counts from start_time; unanswered calls talk 0 s", () => {
    const [answered] = events("call.hangup", { hangup_cause: "normal_clearing", start_time: iso(0) }, 30_000)
    expect(answered).toMatchObject({ outcome: "completed", durationSeconds: 30 })
    const [busy] = events("call.hangup", { hangup_cause: "user_busy", start_time: iso(0) }, 30_000)
    expect(busy).toMatchObject({ outcome: "busy", durationSeconds: 0 })
    const [noStart] = events("call.hangup", { hangup_cause: "normal_clearing" }, 30_000)
    expect(noStart).toMatchObject({ outcome: "completed", durationSeconds: 0 })
  })

  it("answering machine verdicts: machine → voicemail, fax → failed, humans and doubt → nothing", () => {
    const verdicts: ReadonlyArray<readonly [string, string, string | undefined]> = [
      ["call.machine.detection.ended", "machine", "voicemail"],
      ["call.machine.detection.ended", "human", undefined],
      ["call.machine.detection.ended", "not_sure", undefined],
      ["call.machine.greeting.ended", "beep_detected", "voicemail"],
      ["call.machine.greeting.ended", "ended", "voicemail"],
      ["call.machine.greeting.ended", "not_sure", undefined],
      ["call.machine.premium.detection.ended", "machine", "voicemail"],
      ["call.machine.premium.detection.ended", "fax_detected", "failed"],
      ["call.machine.premium.detection.ended", "human_residence", undefined],
      ["call.machine.premium.detection.ended", "human_business", undefined],
      ["call.machine.premium.detection.ended", "silence", undefined],
      ["call.machine.premium.greeting.ended", "beep_detected", "voicemail"],
      ["call.machine.premium.greeting.ended", "no_beep_detected", undefined]
    ]
    for (const [type, result, outcome] of verdicts) {
      const found = events(type, { result }, 5_000, T0 + 1_000)
      expect(found.map((e) => (e.type === "ended" ? e.outcome : e.type))).toEqual(outcome === undefined ? [] : [outcome])
    }
    expect(events("call.machine.detection.ended", { result: "machine" }, 5_000, T0 + 1_000)[0]).toMatchObject({
      durationSeconds: 4,
      hangupCause: "call.machine.detection.ended: machine"
    })
  })

  it("ignores events that change nothing, and underscores in event types", () => {
    for (const type of ["call.bridged", "call.dtmf.received", "streaming.started", "streaming_stopped", "call.speak.ended"]) {
      expect(events(type)).toEqual([])
    }
    expect(Events.eventType(webhook("streaming_started", {}))).toBe("streaming.started")
    expect(Events.toEvents(webhook("call.initiated", { call_control_id: "" }), { answeredAt: undefined }, 0)).toEqual([])
  })

  it("is a pure function of the webhook: a duplicate gives the same events", () => {
    const hangup = webhook("call.hangup", { hangup_cause: "timeout" }, 30_000)
    expect(Events.toEvents(hangup, { answeredAt: undefined }, 0)).toEqual(Events.toEvents(hangup, { answeredAt: undefined }, 0))
  })

  it("falls back to the receiving time when occurred_at is missing or nonsense", () => {
    const raw = (occurred_at: unknown) =>
      Either.getOrThrow(Events.decodeWebhook(new TextEncoder().encode(JSON.stringify({
        data: { event_type: "call.answered", occurred_at, payload: { call_control_id: ID } }
      }))))
    expect(Events.toEvents(raw(null), { answeredAt: undefined }, 77)).toEqual([{ type: "answered", providerCallId: ID, at: 77 }])
    expect(Events.toEvents(raw("yesterday"), { answeredAt: undefined }, 77)).toEqual([{ type: "answered", providerCallId: ID, at: 77 }])
  })

  it("refuses bodies that are not Telnyx webhooks", () => {
    for (const body of ["", "{", "[]", JSON.stringify({ data: {} }), JSON.stringify({ event: "call.hangup" })]) {
      const decoded = Events.decodeWebhook(new TextEncoder().encode(body))
      expect(Either.isLeft(decoded) && decoded.left.message.startsWith("not a Telnyx webhook")).toBe(true)
    }
  })
})
