import type { MediaEvent } from "@agentline/telephony-kit/Media"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { answer, decodeParameters, encodeParameters } from "../src/Answer.js"
import { inboundOf, statusOfRecord, toEvents } from "../src/Callbacks.js"
import { dialect } from "../src/Plivo.js"
import * as Signature from "../src/Signature.js"
import { session, swapBytes } from "../src/Media.js"

const form = (record: Record<string, string>) => Object.entries(record)

describe("Plivo V3 signatures", () => {
  it("signs the URL, the sorted query and the sorted POST parameters as the SDKs do", () => {
    expect(Signature.plivoSignedString("POST", "https://a.example/cb/7", form({ To: "1", CallUUID: "u", From: "2" })))
      .toBe("https://a.example/cb/7?CallUUIDuFrom2To1")
    expect(Signature.plivoSignedString("POST", "https://a.example/cb/7?z=2&a=1&a=0", form({ B: "x", A: "y" })))
      .toBe("https://a.example/cb/7?a=0&a=1&z=2.AyBx")
    expect(Signature.plivoSignedString("POST", "https://a.example/cb/7?x=%20y", [])).toBe("https://a.example/cb/7?x= y")
    expect(Signature.plivoSignedString("POST", "https://a.example/cb/7", [])).toBe("https://a.example/cb/7")
    expect(Signature.plivoSignedString("GET", "https://a.example/cb?b=2", form({ a: "1" }))).toBe("https://a.example/cb?a=1&b=2")
    // Repeated names: every value, sorted.
    expect(Signature.plivoSignedString("POST", "https://a.example:8443/p", [["k", "b"], ["k", "a"]])).toBe("https://a.example:8443/p?kakb")
  })

  const request = (url: string, params: Signature.Params, headers: Record<string, string>) => ({
    method: "POST",
    url,
    params,
    header: (name: string) => headers[name]
  })

  it("accepts the carrier's signature and refuses a wrong, missing, moved or altered one", () => {
    const params = form({ CallUUID: "u1", CallStatus: "completed" })
    const url = "https://calls.example/api/v1/telephony/callbacks/plivo/7?x=1"
    const headers = Signature.sign(Signature.plivoV3, "token", { method: "POST", url, params }, "12345")
    expect(Signature.verify(Signature.plivoV3, "token", request(url, params, headers))).toBe(true)
    // Several signatures, comma-separated: any may match.
    expect(Signature.verify(Signature.plivoV3, "token", request(url, params, { ...headers, "x-plivo-signature-v3": `abc,${headers["x-plivo-signature-v3"]}` })))
      .toBe(true)
    expect(Signature.verify(Signature.plivoV3, "other", request(url, params, headers))).toBe(false)
    expect(Signature.verify(Signature.plivoV3, "token", request(url, params, {}))).toBe(false)
    expect(Signature.verify(Signature.plivoV3, "token", request(url, params, { "x-plivo-signature-v3": headers["x-plivo-signature-v3"]! })))
      .toBe(false)
    expect(Signature.verify(Signature.plivoV3, "token", request(url.replace("/7", "/8"), params, headers))).toBe(false)
    expect(Signature.verify(Signature.plivoV3, "token", request(`${url}&y=2`, params, headers))).toBe(false)
    expect(Signature.verify(Signature.plivoV3, "token", request(url, form({ CallUUID: "u1", CallStatus: "busy" }), headers))).toBe(false)
    expect(Signature.verify(Signature.plivoV3, "", request(url, params, headers))).toBe(false)
  })
})

describe("Plivo callbacks", () => {
  const at = 1_700_000_000_000
  const base = { CallUUID: "call-1", RequestUUID: "req-1", Direction: "outbound", From: "14155550100", To: "14155550111" }

  it("maps ring, answer and every final status to normalized events keyed by the call uuid", () => {
    expect(toEvents(form({ ...base, Event: "Ring", CallStatus: "ringing" }), at)).toEqual([{ type: "ringing", providerCallId: "call-1", at }])
    expect(toEvents(form({ ...base, Event: "StartApp", CallStatus: "in-progress" }), at)).toEqual([{ type: "answered", providerCallId: "call-1", at }])
    const ended = (status: string, extra: Record<string, string> = {}) =>
      toEvents(form({ ...base, Event: "Hangup", CallStatus: status, HangupCauseName: "Cause", Duration: "42", ...extra }), at)[0]
    expect(ended("completed", { AnswerTime: "2024-01-01 10:00:00" })).toMatchObject({ type: "ended", outcome: "completed", durationSeconds: 42, hangupCause: "Cause" })
    expect(ended("busy")).toMatchObject({ outcome: "busy", durationSeconds: 0 })
    expect(ended("no-answer")).toMatchObject({ outcome: "no_answer", durationSeconds: 0 })
    expect(ended("timeout")).toMatchObject({ outcome: "no_answer" })
    expect(ended("cancel")).toMatchObject({ outcome: "canceled" })
    expect(ended("failed")).toMatchObject({ outcome: "failed" })
  })

  it("ends a machine answer as voicemail, ignores a human verdict and unknown notices", () => {
    expect(toEvents(form({ ...base, Event: "MachineDetection", Machine: "true", CallStatus: "in-progress" }), at))
      .toEqual([{ type: "ended", providerCallId: "call-1", at, outcome: "voicemail", durationSeconds: 0, hangupCause: "answering machine" }])
    expect(toEvents(form({ ...base, Event: "MachineDetection", Machine: "false", CallStatus: "in-progress" }), at)).toEqual([])
    expect(toEvents(form({ ...base, Event: "StartStream" }), at)).toEqual([])
    expect(toEvents(form({ Event: "Hangup" }), at)).toEqual([])
  })

  it("reads the outcome from the cause when a hang-up notice has no status", () => {
    const cause = (name: string, extra: Record<string, string> = {}) =>
      toEvents(form({ CallUUID: "c", Event: "Hangup", HangupCauseName: name, ...extra }), at)[0]
    expect(cause("USER_BUSY")).toMatchObject({ outcome: "busy", providerCallId: "c" })
    expect(cause("NO_ANSWER")).toMatchObject({ outcome: "no_answer" })
    expect(cause("ORIGINATOR_CANCEL")).toMatchObject({ outcome: "canceled" })
    expect(cause("UNALLOCATED_NUMBER")).toMatchObject({ outcome: "failed" })
    expect(cause("NORMAL_CLEARING", { BillDuration: "3", Duration: "3" })).toMatchObject({ outcome: "completed", durationSeconds: 3 })
  })

  it("parses an inbound call with its account from the body or from the answer URL, and refuses other requests", () => {
    const inbound = form({ CallUUID: "in-1", From: "919800000000", To: "918000000000", Direction: "inbound", CallStatus: "ringing", Event: "StartApp" })
    expect(inboundOf(inbound, "https://x/inbound/plivo?account_id=MA123")).toEqual({
      _tag: "Inbound",
      accountId: "MA123",
      to: "+918000000000",
      from: "+919800000000",
      providerCallId: "in-1"
    })
    expect(inboundOf([...inbound, ["ParentAuthID", "MA9"]], "https://x/inbound/plivo")).toMatchObject({ accountId: "MA9" })
    expect(inboundOf(inbound, "https://x/inbound/plivo")._tag).toBe("NotInbound")
    expect(inboundOf(form({ CallUUID: "in-1", To: "1", Direction: "inbound", Event: "Hangup", CallStatus: "completed" }), "https://x?account_id=A")._tag)
      .toBe("NotInbound")
    expect(inboundOf(form({ CallUUID: "o-1", To: "1", Direction: "outbound" }), "https://x?account_id=A")._tag).toBe("NotInbound")
  })

  it("reads finished call records", () => {
    expect(statusOfRecord({ answer_time: "2024-01-01 10:00:00", bill_duration: 12, call_duration: 12, hangup_cause_name: "Normal Hangup" }))
      .toEqual({ _tag: "Ended", outcome: "completed", durationSeconds: 12 })
    expect(statusOfRecord({ answer_time: null, bill_duration: 0, call_duration: 0, hangup_cause_name: "Busy Line" }))
      .toEqual({ _tag: "Ended", outcome: "busy", durationSeconds: 0 })
    expect(statusOfRecord({ hangup_cause_name: "Invalid Destination Address" })).toMatchObject({ outcome: "failed" })
  })
})

describe("Plivo XML answers", () => {
  it("streams both ways with the parameters in extraHeaders, keeps open or rejects", () => {
    const connect = answer({ _tag: "ConnectMediaStream", url: "wss://h/media/7?t=a&b", parameters: { attempt_id: "7" } })
    expect(connect.contentType).toBe("application/xml")
    expect(connect.body).toContain(
      `<Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" extraHeaders="agentline=${
        Buffer.from(JSON.stringify({ attempt_id: "7" })).toString("hex")
      }">wss://h/media/7?t=a&amp;b</Stream>`
    )
    expect(answer({ _tag: "KeepOpen" }).body).toContain("<Wait length=")
    expect(answer({ _tag: "Reject", reason: "" }).body).toContain(`<Response><Hangup reason="rejected"/></Response>`)
    expect(answer({ _tag: "Reject", reason: "Sorry & goodbye", busy: true }).body).toContain(`<Response><Hangup reason="busy"/></Response>`)
    expect(answer({ _tag: "Reject", reason: "Sorry & goodbye" }).body).toContain(`<Response><Speak>Sorry &amp; goodbye</Speak><Hangup/></Response>`)
  })

  it("round-trips parameters through extraHeaders and keeps foreign headers", () => {
    const params = { attempt_id: "7", "odd key": "a;b=c,d" }
    expect(encodeParameters(params)).toMatch(/^agentline=[0-9a-f]+$/)
    expect(decodeParameters(encodeParameters(params))).toEqual(params)
    expect(decodeParameters(`userId=12;${encodeParameters({ a: "1" })}`)).toEqual({ userId: "12", a: "1" })
    expect(decodeParameters(undefined)).toEqual({})
  })
})

describe("Plivo stream codec", () => {
  const start = (encoding: string, sampleRate: number) => ({
    _tag: "Text" as const,
    text: JSON.stringify({
      event: "start",
      sequenceNumber: 1,
      start: { callId: "call-1", streamId: "s-1", accountId: "MA1", tracks: ["inbound"], mediaFormat: { encoding, sampleRate } },
      extra_headers: encodeParameters({ attempt_id: "7" })
    })
  })
  const text = (message: unknown) => ({ _tag: "Text" as const, text: JSON.stringify(message) })

  it.effect("decodes start, audio, dtmf, checkpoints and ignores acknowledgements", () =>
    Effect.gen(function*() {
      const codec = session(dialect)
      const events: Array<MediaEvent> = []
      for (
        const frame of [
          start("audio/x-mulaw", 8000),
          text({ event: "media", streamId: "s-1", media: { track: "inbound", timestamp: "1", chunk: 1, payload: Buffer.from([1, 2, 3]).toString("base64") } }),
          text({ event: "dtmf", dtmf: { digit: "5" } }),
          text({ event: "playedStream", streamId: "s-1", name: "m1" }),
          text({ event: "clearedAudio", streamId: "s-1" })
        ]
      ) events.push(...(yield* codec.decode(frame)))
      expect(events).toEqual([
        { _tag: "Start", streamId: "s-1", providerCallId: "call-1", format: { encoding: "mulaw", sampleRate: 8000 }, parameters: { attempt_id: "7" } },
        { _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: new Uint8Array([1, 2, 3]) } },
        { _tag: "Dtmf", digit: "5" },
        { _tag: "Mark", name: "m1" }
      ])
    }))

  it.effect("encodes playAudio, checkpoint and clearAudio for the stream, and refuses other formats", () =>
    Effect.gen(function*() {
      const codec = session(dialect)
      expect((yield* Effect.flip(codec.encode({ _tag: "Mark", name: "early" }))).message).toContain("before the stream started")
      yield* codec.decode(start("audio/x-mulaw", 8000))
      const audio = yield* codec.encode({ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: new Uint8Array([9, 8]) } })
      expect(audio.map((f) => f._tag === "Text" && JSON.parse(f.text))).toEqual([
        { event: "playAudio", media: { contentType: "audio/x-mulaw", sampleRate: 8000, payload: Buffer.from([9, 8]).toString("base64") } }
      ])
      const mark = yield* codec.encode({ _tag: "Mark", name: "m1" })
      expect(mark.map((f) => f._tag === "Text" && JSON.parse(f.text))).toEqual([{ event: "checkpoint", streamId: "s-1", name: "m1" }])
      const clear = yield* codec.encode({ _tag: "Clear" })
      expect(clear.map((f) => f._tag === "Text" && JSON.parse(f.text))).toEqual([{ event: "clearAudio", streamId: "s-1" }])
      expect(yield* codec.encode({ _tag: "Stop" })).toEqual([])
      const wrong = yield* Effect.flip(codec.encode({ _tag: "Audio", audio: { format: { encoding: "l16le", sampleRate: 16000 }, data: new Uint8Array(2) } }))
      expect(wrong.message).toContain("takes mulaw at 8000 Hz")
    }))

  it.effect("reports checkpoints a clear dropped once the clear is confirmed; effects built early run with the codec's state then", () =>
    Effect.gen(function*() {
      const codec = session(dialect)
      // Built before the stream started, run after: it must use the stream id and checkpoints of then.
      const clear = codec.encode({ _tag: "Clear" })
      yield* codec.decode(start("audio/x-mulaw", 8000))
      yield* codec.encode({ _tag: "Mark", name: "played" })
      yield* codec.encode({ _tag: "Mark", name: "dropped" })
      expect(yield* codec.decode(text({ event: "playedStream", streamId: "s-1", name: "played" }))).toEqual([{ _tag: "Mark", name: "played" }])
      const frames = yield* clear
      expect(frames.map((f) => f._tag === "Text" && JSON.parse(f.text))).toEqual([{ event: "clearAudio", streamId: "s-1" }])
      yield* codec.encode({ _tag: "Mark", name: "after" })
      expect(yield* codec.decode(text({ event: "clearedAudio", streamId: "s-1" }))).toEqual([{ _tag: "Mark", name: "dropped" }])
      expect(yield* codec.decode(text({ event: "playedStream", streamId: "s-1", name: "after" }))).toEqual([{ _tag: "Mark", name: "after" }])
    }))

  it.effect("carries L16 in the carrier's order and sends little-endian back", () =>
    Effect.gen(function*() {
      const codec = session(dialect)
      const [started] = yield* codec.decode(start("audio/x-l16", 16000))
      expect(started).toMatchObject({ format: { encoding: "l16le", sampleRate: 16000 } })
      const frames = yield* codec.encode({ _tag: "Audio", audio: { format: { encoding: "l16be", sampleRate: 16000 }, data: new Uint8Array([1, 2, 3, 4]) } })
      const sent = frames[0]!._tag === "Text" ? JSON.parse(frames[0]!.text) : undefined
      expect(Buffer.from(sent.media.payload, "base64")).toEqual(Buffer.from([2, 1, 4, 3]))
      expect(swapBytes(swapBytes(new Uint8Array([5, 6, 7, 8])))).toEqual(new Uint8Array([5, 6, 7, 8]))
    }))

  it.effect("refuses malformed frames, audio before start and unknown encodings", () =>
    Effect.gen(function*() {
      const codec = session(dialect)
      expect((yield* Effect.flip(codec.decode({ _tag: "Text", text: "not json" }))).message).toContain("bad message")
      expect((yield* Effect.flip(codec.decode(text({ event: "media", media: { payload: "AA==" } })))).message).toContain("before the start")
      expect((yield* Effect.flip(codec.decode(text({ event: "start", start: {} })))).message).toContain("bad start message")
      expect((yield* Effect.flip(codec.decode(start("audio/opus", 48000)))).message).toContain("unsupported encoding")
      expect((yield* Effect.flip(codec.decode({ _tag: "Binary", data: new Uint8Array(1) }))).message).toContain("binary")
    }))
})
