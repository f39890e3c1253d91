import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import { Ari } from "../src/index.js"

const { Media } = Ari

const text = (t: string) => ({ _tag: "Text", text: t }) as const
const START = "MEDIA_START connection_id:media1 channel:WebSocket/media1/0x5140001a0040 channel_id:1761245643.1 format:ulaw optimal_frame_size:160 ptime:20"

describe("chan_websocket codec", () => {
  it.effect("MEDIA_START starts a µ-law stream at 8 kHz; the call id is the attempt's own (the media channel is not the call)", () =>
    Effect.gen(function*() {
      const session = yield* Media.open
      expect(yield* session.decode(text(START))).toEqual([{
        _tag: "Start",
        streamId: "media1",
        providerCallId: undefined,
        format: { encoding: "mulaw", sampleRate: 8000 },
        parameters: {}
      }])
    }))

  it.effect("reads the JSON control format too (f(json))", () =>
    Effect.gen(function*() {
      const session = yield* Media.open
      const events = yield* session.decode(text(JSON.stringify({ event: "MEDIA_START", connection_id: "c1", channel_id: "1.2", format: "slin16", optimal_frame_size: 320 })))
      expect(events[0]).toMatchObject({ _tag: "Start", streamId: "c1", format: { encoding: "l16le", sampleRate: 16000 } })
      expect(yield* session.decode(text(JSON.stringify({ event: "DTMF_END", digit: "7" })))).toEqual([{ _tag: "Dtmf", digit: "7" }])
    }))

  it.effect("DTMF, marks processed, and notices (XOFF/XON, STATUS) that are no events", () =>
    Effect.gen(function*() {
      const session = yield* Media.open
      yield* session.decode(text(START))
      expect(yield* session.decode(text("DTMF_END digit:5"))).toEqual([{ _tag: "Dtmf", digit: "5" }])
      expect(yield* session.decode(text("DTMF_END digit:# channel_id:1761245643.1"))).toEqual([{ _tag: "Dtmf", digit: "#" }])
      expect(yield* session.decode(text("MEDIA_MARK_PROCESSED mark-2"))).toEqual([{ _tag: "Mark", name: "mark-2" }])
      expect(yield* session.decode(text("MEDIA_MARK_PROCESSED"))).toEqual([])
      for (const notice of ["MEDIA_XOFF", "MEDIA_XON", "STATUS channel_id:1.2 queue_length:3", "QUEUE_DRAINED", "MEDIA_BUFFERING_COMPLETED x", ""]) {
        expect(yield* session.decode(text(notice))).toEqual([])
      }
    }))

  it.effect("answers a JSON stream in JSON (chan_websocket.conf or f(json))", () =>
    Effect.gen(function*() {
      const session = yield* Media.open
      yield* session.decode(text(JSON.stringify({ event: "MEDIA_START", connection_id: "c1", channel: "WebSocket/c1/0x1", channel_id: "1.2", format: "ulaw", optimal_frame_size: 160, ptime: 20, channel_variables: {} })))
      expect(yield* session.encode({ _tag: "Mark", name: "two words" })).toEqual([text(JSON.stringify({ command: "MARK_MEDIA", correlation_id: "two words" }))])
      expect(yield* session.decode(text(JSON.stringify({ event: "MEDIA_MARK_PROCESSED", channel_id: "1.2", correlation_id: "two words" })))).toEqual([{ _tag: "Mark", name: "two words" }])
      expect(yield* session.encode({ _tag: "Clear" })).toEqual([text(JSON.stringify({ command: "FLUSH_MEDIA" })), text(JSON.stringify({ command: "REPORT_QUEUE_DRAINED" }))])
      expect(yield* session.encode({ _tag: "Stop" })).toEqual([text(JSON.stringify({ command: "HANGUP" }))])
    }))

  it.effect("refuses a stream in a format it cannot carry", () =>
    Effect.gen(function*() {
      const session = yield* Media.open
      const failed = yield* Effect.flip(session.decode(text("MEDIA_START connection_id:c format:opus")))
      expect(failed.message).toContain("opus")
    }))

  it.effect("sends marks, flush and hang-up as chan_websocket commands; audio before the start or in another format is refused", () =>
    Effect.gen(function*() {
      const session = yield* Media.open
      const audio = { format: { encoding: "mulaw", sampleRate: 8000 } as const, data: new Uint8Array(160) }
      yield* Effect.flip(session.encode({ _tag: "Audio", audio }))
      yield* session.decode(text(START))
      expect(yield* session.encode({ _tag: "Mark", name: "mark-1" })).toEqual([text("MARK_MEDIA mark-1")])
      expect(yield* session.encode({ _tag: "Mark", name: "two words" })).toEqual([text("MARK_MEDIA two_words")])
      // The plain-text id comes back as sent, and is named as the runtime named it.
      expect(yield* session.decode(text("MEDIA_MARK_PROCESSED two_words"))).toEqual([{ _tag: "Mark", name: "two words" }])
      expect(yield* session.encode({ _tag: "Clear" })).toEqual([text("FLUSH_MEDIA"), text("REPORT_QUEUE_DRAINED")])
      // mark-1 was flushed (chan_websocket drops it silently): the drain after the flush reports it.
      expect(yield* session.decode(text("QUEUE_DRAINED"))).toEqual([{ _tag: "Mark", name: "mark-1" }])
      expect(yield* session.decode(text("QUEUE_DRAINED"))).toEqual([])
      expect(yield* session.encode({ _tag: "Stop" })).toEqual([text("HANGUP")])
      expect(yield* session.encode({ _tag: "Audio", audio })).toEqual([{ _tag: "Binary", data: audio.data }])
      yield* Effect.flip(session.encode({ _tag: "Audio", audio: { ...audio, format: { encoding: "l16le", sampleRate: 16000 } } }))
    }))

  it.effect("binary audio passes through unchanged at every format chan_websocket streams (property)", () =>
    Effect.gen(function*() {
      for (const [name, format] of [["ulaw", { encoding: "mulaw", sampleRate: 8000 }], ["alaw", { encoding: "alaw", sampleRate: 8000 }], ["slin", { encoding: "l16le", sampleRate: 8000 }], ["slin16", { encoding: "l16le", sampleRate: 16000 }], ["slin24", { encoding: "l16le", sampleRate: 24000 }]] as const) {
        const session = yield* Media.open
        yield* session.decode(text(`MEDIA_START connection_id:c format:${name}`))
        FastCheck.assert(FastCheck.property(FastCheck.uint8Array({ minLength: 1, maxLength: 640 }), (data) => {
          const decoded = Effect.runSync(session.decode({ _tag: "Binary", data }))
          expect(decoded).toEqual([{ _tag: "Audio", audio: { format, data } }])
          expect(Effect.runSync(session.encode({ _tag: "Audio", audio: { format, data } }))).toEqual([{ _tag: "Binary", data }])
        }), { numRuns: 30 })
      }
    }))

  it.effect("audio before MEDIA_START is dropped", () =>
    Effect.gen(function*() {
      const session = yield* Media.open
      expect(yield* session.decode({ _tag: "Binary", data: new Uint8Array(160) })).toEqual([])
    }))
})
