import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import { Telnyx } from "../src/index.js"
import { API_KEY, CALLER, ended, eventsOf, freshNumber, place, setup } from "./Setup.js"

describe("telnyx calls against the fake Telnyx", () => {
  it.scopedLive("places a call through the application, with its webhooks, command id and client state; a person answers and it completes", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const to = freshNumber()
      s.fake.behave(to, { answer: "human", ringSeconds: 1, talkSeconds: 10 })
      const { providerCallId } = yield* place(s, to, { attemptId: 41 })
      expect(yield* ended(s, providerCallId)).toBe("normal_clearing")
      expect(eventsOf(s, providerCallId)).toEqual(["initiated", "answered", "ended:completed"])
      const end = s.receiver.events.find((e) => e.type === "ended")!
      // Ten Telnyx seconds of the fake are 200 ms: talk time is measured, to the millisecond.
      expect(end).toMatchObject({ hangupCause: "normal_clearing (SIP 200)" })
      expect(end.type === "ended" && end.durationSeconds).toBeGreaterThan(0.15)
      expect(end.type === "ended" && end.durationSeconds).toBeLessThan(1)
      // The dial as Telnyx received it.
      const call = s.fake.call(providerCallId)!
      expect(call).toMatchObject({ from: CALLER, to, connectionId: s.application.id, webhookUrl: `${s.receiver.url}/status/41` })
      expect(Telnyx.ClientState.decode(call.clientState)).toEqual({ attempt_id: "41" })
      expect(s.receiver.received.every((r) => r.status === 200)).toBe(true)
      expect(s.receiver.received.map((r) => r.body.data.event_type)).toEqual(["call.initiated", "call.answered", "call.hangup"])
    }))

  it.scopedLive("talk time runs from the answer to the hang-up, in Telnyx seconds", () =>
    Effect.gen(function*() {
      const s = yield* setup({ secondMillis: 1000 })
      const to = freshNumber()
      s.fake.behave(to, { answer: "human", ringSeconds: 0.2, talkSeconds: 2 })
      const { providerCallId } = yield* place(s, to)
      yield* ended(s, providerCallId)
      const end = s.receiver.events.find((e) => e.type === "ended")
      expect(end).toMatchObject({ outcome: "completed" })
      expect(end?.type === "ended" && end.durationSeconds).toBeCloseTo(2, 0)
    }), 10_000)

  it.scopedLive("maps how the callee answers to outcomes: busy, no answer after the ring timeout, rejected, unreachable", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const cases = [["busy", "user_busy", "busy"], ["no-answer", "timeout", "no_answer"], ["rejected", "call_rejected", "failed"], ["unreachable", "not_found", "failed"]] as const
      for (const [answer, cause, outcome] of cases) {
        const to = freshNumber()
        s.fake.behave(to, { answer })
        const { providerCallId } = yield* place(s, to)
        expect(yield* ended(s, providerCallId)).toBe(cause)
        expect(eventsOf(s, providerCallId)).toEqual(["initiated", `ended:${outcome}`])
      }
    }))

  it.scopedLive("with machine detection a machine ends the call voicemail and is hung up; a person completes; none asked without the flag", () =>
    Effect.gen(function*() {
      const s = yield* setup({ amd: true })
      const machine = freshNumber()
      s.fake.behave(machine, { answer: "machine", talkSeconds: 20 })
      const placed = yield* place(s, machine)
      // The callee would talk 20 s: the adapter hung the machine up instead.
      expect(yield* ended(s, placed.providerCallId)).toBe("normal_clearing")
      expect(s.fake.call(placed.providerCallId)!.commands.map((c) => c.action)).toEqual(["hangup"])
      // The hang-up that follows the verdict reports the same end.
      expect(eventsOf(s, placed.providerCallId)).toEqual(["initiated", "answered", "ended:voicemail", "ended:voicemail"])
      expect(yield* s.adapter.calls.get({ config: s.config, providerCallId: placed.providerCallId })).toMatchObject({ _tag: "Ended", outcome: "voicemail" })

      const person = freshNumber()
      s.fake.behave(person, { answer: "human" })
      const human = yield* place(s, person)
      yield* ended(s, human.providerCallId)
      expect(eventsOf(s, human.providerCallId)).toEqual(["initiated", "answered", "ended:completed"])
      expect(s.receiver.received.some((r) => r.body.data.event_type === "call.machine.detection.ended" && r.body.data.payload.result === "human")).toBe(true)

      s.config = { ...s.config, amd_enabled: false }
      const plain = yield* place(s, freshNumber())
      yield* ended(s, plain.providerCallId)
      expect(s.receiver.received.filter((r) => r.body.data.payload.call_control_id === plain.providerCallId).map((r) => r.body.data.event_type))
        .not.toContain("call.machine.detection.ended")
    }))

  it.scopedLive("a number Telnyx refuses fails at once, not retryable, with Telnyx's message and the number; never the API key", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const to = freshNumber()
      s.fake.behave(to, { answer: "invalid" })
      const invalid = yield* Effect.flip(place(s, to))
      expect(invalid).toMatchObject({ _tag: "TelephonyError", provider: "telnyx", retryable: false })
      expect(invalid.message).toBe(`Telnyx refused to place the call to ${to}: Invalid phone number: The phone number ${to} is invalid. (code 10002, HTTP 422)`)
      const malformed = yield* Effect.flip(place(s, "12345"))
      expect(malformed.message).toContain("Phone number must be in +E.164 format")
      const stranger = yield* Effect.flip(s.adapter.calls.place({ ...placeInput(s), from: "+13125550999" }))
      expect(stranger.message).toContain("not a number of this account")
      const noApplication = yield* Effect.flip(s.adapter.calls.place({ ...placeInput(s), config: { ...s.config, connection_id: undefined } as any }))
      expect(noApplication.message).toContain("connection_id")
      const noCaller = yield* Effect.flip(s.adapter.calls.place({ ...placeInput(s), from: undefined }))
      expect(noCaller.message).toContain("caller id")
      const badKey = yield* Effect.flip(s.adapter.calls.place({ ...placeInput(s), config: { ...s.config, api_key: "wrong" } }))
      expect(badKey).toMatchObject({ retryable: false, message: expect.stringContaining("Authentication failed") })
      for (const e of [invalid, malformed, stranger, badKey]) expect(JSON.stringify(e)).not.toContain(API_KEY)
    }))

  it.scopedLive("429 and 5xx are retryable failures (the caller retries them); Telnyx unreachable too", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      for (const status of [429, 500, 503]) {
        s.fake.failNext(status, 1)
        const e = yield* Effect.flip(place(s, freshNumber()))
        expect(e.retryable).toBe(true)
        expect(e.message).toContain(`HTTP ${status}`)
      }
      const gone = yield* Telnyx.make({ apiUrl: "http://127.0.0.1:9" }).pipe(Effect.provide(FetchHttpClient.layer))
      const e = yield* Effect.flip(gone.calls.place({ ...placeInput(s) }))
      expect(e).toMatchObject({ retryable: true, message: expect.stringContaining("could not be reached") })
    }))

  it.scopedLive("a re-sent dial with the same attempt dials once", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const to = freshNumber()
      const first = yield* place(s, to, { attemptId: 7 })
      const second = yield* place(s, to, { attemptId: 7 })
      expect(second.providerCallId).toBe(first.providerCallId)
      expect(s.fake.calls()).toHaveLength(1)
    }))

  it.scopedLive("hang-up cancels a ringing call and clears an answered one; hanging up again succeeds; get follows the call", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const ringing = freshNumber()
      s.fake.behave(ringing, { answer: "no-answer" })
      const a = yield* place(s, ringing)
      expect(yield* s.adapter.calls.get({ config: s.config, providerCallId: a.providerCallId })).toEqual({ _tag: "InProgress" })
      yield* s.adapter.calls.hangUp({ config: s.config, providerCallId: a.providerCallId })
      expect(yield* ended(s, a.providerCallId)).toBe("originator_cancel")
      expect(eventsOf(s, a.providerCallId)).toEqual(["initiated", "ended:canceled"])
      expect(yield* s.adapter.calls.get({ config: s.config, providerCallId: a.providerCallId })).toEqual({ _tag: "Ended", outcome: "canceled", durationSeconds: 0 })
      yield* s.adapter.calls.hangUp({ config: s.config, providerCallId: a.providerCallId })

      const talking = freshNumber()
      s.fake.behave(talking, { answer: "human", ringSeconds: 0.1, talkSeconds: 100 })
      const b = yield* place(s, talking)
      yield* Effect.promise(() => waitForEvent(s, b.providerCallId, "answered"))
      yield* s.adapter.calls.hangUp({ config: s.config, providerCallId: b.providerCallId })
      expect(yield* ended(s, b.providerCallId)).toBe("normal_clearing")
      expect(eventsOf(s, b.providerCallId)).toEqual(["initiated", "answered", "ended:completed"])

      // Another process (or this one after a restart) cannot tell how a finished call ended: Unknown, never a guess.
      const restarted = yield* Telnyx.make({ apiUrl: s.fake.url }).pipe(Effect.provide(FetchHttpClient.layer))
      expect(yield* restarted.calls.get({ config: s.config, providerCallId: b.providerCallId })).toMatchObject({ _tag: "Unknown" })
      expect(yield* s.adapter.calls.get({ config: s.config, providerCallId: "v3:no-such-call" })).toMatchObject({ _tag: "Unknown" })
      s.fake.failNext(500, 10)
      expect(yield* s.adapter.calls.get({ config: s.config, providerCallId: b.providerCallId })).toMatchObject({ _tag: "Unknown" })
    }), 15_000)

  it.scopedLive("webhooks verify with the fake's key; a wrong or missing signature does not; duplicates and reversal change no outcome", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const to = freshNumber()
      s.fake.behave(to, { answer: "busy" })
      const { providerCallId } = yield* place(s, to)
      yield* ended(s, providerCallId)
      const call = s.fake.call(providerCallId)!
      expect(yield* Effect.promise(() => call.forge("wrong"))).toBe(401)
      expect(yield* Effect.promise(() => call.forge("missing"))).toBe(401)
      expect(yield* Effect.promise(() => call.resend("reverse"))).toEqual([200, 200])
      expect(yield* Effect.promise(() => call.resend("same"))).toEqual([200, 200])
      expect(eventsOf(s, providerCallId)).toEqual(["initiated", "ended:busy", "ended:busy", "initiated", "initiated", "ended:busy"])
      // Another account's key verifies nothing.
      s.config = { ...s.config, webhook_public_key: Telnyx.Signature.publicKeyBase64(Crypto.generateKeyPairSync("ed25519").publicKey) }
      expect(yield* Effect.promise(() => call.resend("same"))).toEqual([401, 401])
      s.config = { api_key: s.config.api_key, amd_enabled: false }
      expect(yield* Effect.promise(() => call.resend("same"))).toEqual([401, 401])
    }))
})

const placeInput = (s: Effect.Effect.Success<ReturnType<typeof setup>>) => ({
  config: s.config,
  to: freshNumber(),
  from: CALLER,
  attemptId: 1,
  callbackUrl: `${s.receiver.url}/status/1`,
  answerUrl: `${s.receiver.url}/answer/1`,
  whenAnswered: { _tag: "KeepOpen" } as const,
  onEvent: () => Effect.void
})

const waitForEvent = async (s: Effect.Effect.Success<ReturnType<typeof setup>>, id: string, type: string) => {
  const deadline = Date.now() + 5000
  while (!eventsOf(s, id).includes(type)) {
    if (Date.now() > deadline) throw new Error(`no ${type} for ${id}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
