import { describe, expect, it } from "@effect/vitest"
import type { MediaEvent, WebSocketFrame } from "@agentline/telephony-kit/Media"
import { Effect } from "effect"
import * as FastCheck from "effect/FastCheck"
import { Vonage } from "../src/index.js"

const text = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })
const connected = (contentType = "audio/l16;rate=16000", headers: Record<string, string> = {}) =>
  text({ event: "websocket:connected", "content-type": contentType, ...headers })

describe("Vonage media codec", () => {
  it.effect("websocket:connected starts the stream at the rate Vonage confirms, with our headers back as parameters", () =>
    Effect.gen(function*() {
      const codec = Vonage.Media.session()
      const [start] = yield* codec.decode(connected("audio/l16;rate=16000", { attempt: "7", token: "x" }))
      expect(start).toMatchObject({ _tag: "Start", format: { encoding: "l16le", sampleRate: 16000 }, parameters: { attempt: "7", token: "x" } })
      const eight = Vonage.Media.session()
      expect((yield* eight.decode(connected("audio/l16;rate=8000")))[0]).toMatchObject({ format: { sampleRate: 8000 } })
      expect(yield* Effect.flip(Vonage.Media.session().decode(connected("audio/x-mulaw")))).toMatchObject({ _tag: "TelephonyError" })
      expect(yield* Effect.flip(Vonage.Media.session().decode({ _tag: "Binary", data: new Uint8Array(640) }))).toMatchObject({ _tag: "TelephonyError" })
    }))

  it.effect("binary frames are audio at the stream's format, both ways, at every rate Vonage streams", () =>
    Effect.gen(function*() {
      for (const rate of [8000, 16000, 24000]) {
        const codec = Vonage.Media.session()
        yield* codec.decode(connected(`audio/l16;rate=${rate}`))
        const format = { encoding: "l16le", sampleRate: rate } as const
        const bytes = (rate / 50) * 2
        yield* Effect.promise(() =>
          FastCheck.assert(
            FastCheck.asyncProperty(FastCheck.uint8Array({ minLength: bytes, maxLength: bytes }), async (data) => {
              const events = await Effect.runPromise(codec.decode({ _tag: "Binary", data }))
              expect(events).toEqual([{ _tag: "Audio", audio: { format, data } }])
              const frames = await Effect.runPromise(codec.encode({ _tag: "Audio", audio: { format, data } }))
              expect(frames).toEqual([{ _tag: "Binary", data }])
            }),
            { numRuns: 25 }
          )
        )
      }
    }))

  it.effect("audio is sent as whole 20 ms frames: a remainder waits for more, a mark sends it padded; another format is refused", () =>
    Effect.gen(function*() {
      const codec = Vonage.Media.session()
      yield* codec.decode(connected())
      const format = { encoding: "l16le", sampleRate: 16000 } as const
      const sizes = (frames: ReadonlyArray<WebSocketFrame>) => frames.map((f) => (f._tag === "Binary" ? f.data.length : f.text))
      expect(sizes(yield* codec.encode({ _tag: "Audio", audio: { format, data: new Uint8Array(1000).fill(1) } }))).toEqual([640])
      // 360 bytes waited; with 300 more, one frame of 640 (the 360 first), 20 left.
      const next = yield* codec.encode({ _tag: "Audio", audio: { format, data: new Uint8Array(300).fill(2) } })
      expect(sizes(next)).toEqual([640])
      const frame = (next[0] as { readonly data: Uint8Array }).data
      expect([...frame.subarray(0, 360)].every((b) => b === 1) && [...frame.subarray(360)].every((b) => b === 2)).toBe(true)
      const marked = yield* codec.encode({ _tag: "Mark", name: "m" })
      expect(sizes(marked)).toEqual([640, JSON.stringify({ action: "notify", payload: { name: "m" } })])
      const padded = (marked[0] as { readonly data: Uint8Array }).data
      expect([...padded.subarray(0, 20)].every((b) => b === 2) && [...padded.subarray(20)].every((b) => b === 0)).toBe(true)
      // A clear drops what waited.
      yield* codec.encode({ _tag: "Audio", audio: { format, data: new Uint8Array(100) } })
      yield* codec.encode({ _tag: "Clear" })
      expect(sizes(yield* codec.encode({ _tag: "Mark", name: "n" }))).toEqual([JSON.stringify({ action: "notify", payload: { name: "n" } })])
      const refused = yield* Effect.flip(codec.encode({ _tag: "Audio", audio: { format: { encoding: "l16le", sampleRate: 8000 }, data: new Uint8Array(320) } }))
      expect(refused.message).toContain("16000")
    }))

  it.effect("marks are notify actions; websocket:notify reports them; clear reports the ones it dropped, once", () =>
    Effect.gen(function*() {
      const codec = Vonage.Media.session()
      yield* codec.decode(connected())
      expect(yield* codec.encode({ _tag: "Mark", name: "a" })).toEqual([text({ action: "notify", payload: { name: "a" } })])
      yield* codec.encode({ _tag: "Mark", name: "b" })
      yield* codec.encode({ _tag: "Mark", name: "c" })
      const notified = (name: string) => codec.decode(text({ event: "websocket:notify", payload: { name } }))
      expect(yield* notified("a")).toEqual([{ _tag: "Mark", name: "a" }])
      expect(yield* notified("a")).toEqual([])
      expect(yield* codec.encode({ _tag: "Clear" })).toEqual([text({ action: "clear" })])
      const cleared: ReadonlyArray<MediaEvent> = yield* codec.decode(text({ event: "websocket:cleared" }))
      expect(cleared).toEqual([{ _tag: "Mark", name: "b" }, { _tag: "Mark", name: "c" }])
      expect(yield* notified("b")).toEqual([])
    }))

  it.effect("DTMF is a digit; other events are ignored; stop sends nothing (the call is hung up by the API)", () =>
    Effect.gen(function*() {
      const codec = Vonage.Media.session()
      yield* codec.decode(connected())
      expect(yield* codec.decode(text({ event: "websocket:dtmf", digit: "5", duration: 260 }))).toEqual([{ _tag: "Dtmf", digit: "5" }])
      expect(yield* codec.decode(text({ event: "websocket:dtmf", dtmf: { digit: "#" } }))).toEqual([{ _tag: "Dtmf", digit: "#" }])
      expect(yield* codec.decode(text({ event: "websocket:media:update" }))).toEqual([])
      expect(yield* codec.encode({ _tag: "Stop" })).toEqual([])
      expect(yield* Effect.flip(codec.decode({ _tag: "Text", text: "{" }))).toMatchObject({ _tag: "TelephonyError" })
    }))
})

describe("NCCO", () => {
  it("connects a media stream to a 16 kHz L16 WebSocket with the parameters as headers; rejects by saying the reason", () => {
    expect(Vonage.Answer.ncco({ _tag: "ConnectMediaStream", url: "wss://x/media/vonage/t", parameters: { a: "1" } })).toEqual([
      { action: "connect", endpoint: [{ type: "websocket", uri: "wss://x/media/vonage/t", "content-type": "audio/l16;rate=16000", headers: { a: "1" } }] }
    ])
    expect(Vonage.Answer.ncco({ _tag: "Reject", reason: "Goodbye." })).toEqual([{ action: "talk", text: "Goodbye." }])
    expect(Vonage.Answer.ncco({ _tag: "Reject", reason: "" })).toEqual([])
    expect(Vonage.Answer.ncco({ _tag: "KeepOpen" }, { conversationName: "c" })).toEqual([{ action: "conversation", name: "c" }])
    expect(Vonage.Answer.answer({ _tag: "Reject", reason: "" })).toEqual({ status: 200, contentType: "application/json", body: "[]" })
  })
})
