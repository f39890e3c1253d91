/**
 * Acme's pure parts: status callbacks as events, the signature, call-flow documents, the media codec.
 * The port's behaviour against the fake Acme is the kit's contract (`Contract.test.ts`).
 */
import type { CallEvent } from "@agentline/telephony-kit/TelephonyProvider"
import { describe, expect, it } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import * as Acme from "../src/Acme.js"

describe("Acme protocol (pure)", () => {
  it("maps statuses to normalized events, talk time only for answered calls", () => {
    const at = "2026-01-01T00:00:00.000Z"
    const events = (status: Acme.Callbacks.AcmeStatus, duration?: number): ReadonlyArray<CallEvent> =>
      Acme.Callbacks.toEvents({ call_id: "CA1", status, timestamp: DateTime.unsafeMake(at), ...(duration !== undefined ? { duration } : {}) })
    expect(events("queued")).toEqual([])
    expect(events("ringing").map((e) => e.type)).toEqual(["ringing"])
    expect(events("completed", 42)).toMatchObject([{ type: "ended", outcome: "completed", durationSeconds: 42 }])
    expect(events("machine", 7)).toMatchObject([{ type: "ended", outcome: "voicemail", durationSeconds: 7 }])
    expect(events("no-answer", 30)).toMatchObject([{ type: "ended", outcome: "no_answer", durationSeconds: 0 }])
  })

  it("signatures verify within the tolerance only, and only for the signed body", () => {
    const body = new TextEncoder().encode("{}")
    const now = 1_700_000_000_000
    const header = Acme.Callbacks.sign("s", now / 1000, body)
    expect(Acme.Callbacks.verify("s", header, body, now)).toBe(true)
    expect(Acme.Callbacks.verify("s", header, body, now + (Acme.Callbacks.signatureToleranceSeconds + 1) * 1000)).toBe(false)
    expect(Acme.Callbacks.verify("other", header, body, now)).toBe(false)
    expect(Acme.Callbacks.verify("s", header, new TextEncoder().encode("{ }"), now)).toBe(false)
    expect(Acme.Callbacks.verify("s", undefined, body, now)).toBe(false)
  })

  it("writes a call-flow document for each instruction", () => {
    expect(JSON.parse(Acme.Answer.answer({ _tag: "ConnectMediaStream", url: "wss://x/m", parameters: { a: "1" } }).body))
      .toEqual({ actions: [{ type: "stream", url: "wss://x/m", params: { a: "1" } }] })
    expect(JSON.parse(Acme.Answer.answer({ _tag: "Reject", reason: "no" }).body)).toEqual({ actions: [{ type: "reject", reason: "no" }] })
    expect(JSON.parse(Acme.Answer.answer({ _tag: "Reject", reason: "busy", busy: true }).body)).toEqual({ actions: [{ type: "busy" }] })
    expect(Acme.Answer.actions({ _tag: "KeepOpen" })[0]).toMatchObject({ type: "pause" })
  })

  it.effect("the media codec carries 16 kHz linear PCM both ways", () =>
    Effect.gen(function*() {
      const codec = Acme.Media.session()
      const [start] = yield* codec.decode({
        _tag: "Text",
        text: JSON.stringify({ event: "start", stream_id: "s1", call_id: "CA1", format: { encoding: "l16le", rate: 16000 } })
      })
      expect(start).toMatchObject({ _tag: "Start", format: { encoding: "l16le", sampleRate: 16000 } })
      const pcm = new Uint8Array([1, 0, 2, 0])
      const [frame] = yield* codec.encode({ _tag: "Audio", audio: { format: { encoding: "l16le", sampleRate: 16000 }, data: pcm } })
      expect(frame).toEqual({ _tag: "Text", text: JSON.stringify({ event: "media", payload: "AQACAA==" }) })
      const [audio] = yield* codec.decode(frame!)
      expect(audio).toEqual({ _tag: "Audio", audio: { format: { encoding: "l16le", sampleRate: 16000 }, data: pcm } })
      expect((yield* Effect.flip(codec.encode({ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: pcm } }))).message)
        .toContain("l16le at 16000 Hz")
    }))
})
