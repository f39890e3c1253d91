import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import type { WebSocketFrame } from "@agentline/telephony-kit/Media"
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

  const FORMATS = [
    ["ulaw", { encoding: "mulaw", sampleRate: 8000 }, 160, 0xff],
    ["alaw", { encoding: "alaw", sampleRate: 8000 }, 160, 0xd5],
    ["slin", { encoding: "l16le", sampleRate: 8000 }, 320, 0],
    ["slin16", { encoding: "l16le", sampleRate: 16000 }, 640, 0],
    ["slin24", { encoding: "l16le", sampleRate: 24000 }, 960, 0]
  ] as const

  const bytesOf = (frames: ReadonlyArray<WebSocketFrame>) => Buffer.concat(frames.flatMap((f) => (f._tag === "Binary" ? [f.data] : [])))

  it.effect("caller audio is read as sent; the agent's goes in whole frames, the rest padded with silence before a mark (property)", () =>
    Effect.gen(function*() {
      for (const [name, format, frame, silence] of FORMATS) {
        FastCheck.assert(FastCheck.property(FastCheck.array(FastCheck.uint8Array({ minLength: 1, maxLength: 700 }), { minLength: 1, maxLength: 5 }), (chunks) => {
          const session = Effect.runSync(Media.open)
          // optimal_frame_size is given for some formats and left out for others: 20 ms of audio then.
          Effect.runSync(session.decode(text(`MEDIA_START connection_id:c format:${name}${name === "ulaw" ? " optimal_frame_size:160" : ""}`)))
          const data = chunks[0]!
          expect(Effect.runSync(session.decode({ _tag: "Binary", data }))).toEqual([{ _tag: "Audio", audio: { format, data } }])
          const sent = chunks.flatMap((chunk) => Effect.runSync(session.encode({ _tag: "Audio", audio: { format, data: chunk } })))
          const marked = Effect.runSync(session.encode({ _tag: "Mark", name: "m" }))
          const frames = [...sent, ...marked].filter((f) => f._tag === "Binary")
          // chan_websocket plays whole frames only (without buffering it drops the rest of a message).
          for (const f of frames) expect(bytesOf([f]).length % frame).toBe(0)
          const all = Buffer.concat(chunks)
          const out = bytesOf(frames)
          expect(out.subarray(0, all.length)).toEqual(all)
          expect(out.length).toBe(Math.ceil(all.length / frame) * frame)
          expect([...out.subarray(all.length)].every((b) => b === silence)).toBe(true)
          expect(marked.at(-1)).toEqual(text("MARK_MEDIA m"))
        }), { numRuns: 30 })
      }
    }))

  it.effect("a clear drops the part of a frame not sent yet; a hang-up sends it first", () =>
    Effect.gen(function*() {
      const session = yield* Media.open
      yield* session.decode(text(START))
      const audio = (n: number) => ({ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: new Uint8Array(n).fill(7) } }) as const
      expect(bytesOf(yield* session.encode(audio(100)))).toHaveLength(0)
      expect(yield* session.encode({ _tag: "Clear" })).toEqual([text("FLUSH_MEDIA"), text("REPORT_QUEUE_DRAINED")])
      expect(bytesOf(yield* session.encode(audio(170)))).toHaveLength(160)
      const stop = yield* session.encode({ _tag: "Stop" })
      expect(bytesOf(stop)).toHaveLength(160)
      expect(stop.at(-1)).toEqual(text("HANGUP"))
    }))

  it.effect("audio before MEDIA_START is dropped", () =>
    Effect.gen(function*() {
      const session = yield* Media.open
      expect(yield* session.decode({ _tag: "Binary", data: new Uint8Array(160) })).toEqual([])
    }))
})
