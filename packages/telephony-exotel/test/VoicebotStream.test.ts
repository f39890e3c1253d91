import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import type { WebSocketFrame } from "@agentline/core/telephony/Media"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import { VoicebotStream } from "../src/index.js"

const text = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })
const json = (frame: WebSocketFrame) => (frame._tag === "Text" ? JSON.parse(frame.text) : undefined)

/** A `start` as Exotel's Voicebot applet sends it. */
const start = (mediaFormat: Record<string, string>) =>
  text({
    event: "start",
    sequence_number: "1",
    stream_sid: "MZ1",
    start: {
      stream_sid: "MZ1",
      call_sid: "CA1",
      account_sid: "acme1",
      from: "+919876543210",
      to: "+918047491899",
      custom_parameters: { attempt_id: "7" },
      media_format: mediaFormat
    }
  })

const l16 = (sampleRate: number): AudioFormat => ({ encoding: "l16le", sampleRate })

describe("exotel voicebot stream", () => {
  it.effect("decodes connected, start (format and parameters), media, dtmf, mark and stop", () =>
    Effect.gen(function*() {
      const codec = VoicebotStream.session()
      expect(yield* codec.decode(text({ event: "connected" }))).toEqual([])
      expect(yield* codec.decode(start({ encoding: "audio/x-raw", sample_rate: "8000", bit_rate: "16" }))).toEqual([{
        _tag: "Start",
        streamId: "MZ1",
        providerCallId: "CA1",
        format: l16(8000),
        parameters: { attempt_id: "7" }
      }])
      const payload = Buffer.from([1, 0, 2, 0]).toString("base64")
      expect(yield* codec.decode(text({ event: "media", stream_sid: "MZ1", media: { chunk: "2", timestamp: "200", payload } }))).toEqual([
        { _tag: "Audio", audio: { format: l16(8000), data: new Uint8Array([1, 0, 2, 0]) } }
      ])
      expect(yield* codec.decode(text({ event: "dtmf", stream_sid: "MZ1", dtmf: { digit: "5", duration: "100" } }))).toEqual([{ _tag: "Dtmf", digit: "5" }])
      expect(yield* codec.decode(text({ event: "dtmf", dtmf: { digit: "55" } }))).toEqual([])
      expect(yield* codec.decode(text({ event: "mark", stream_sid: "MZ1", mark: { name: "s1" } }))).toEqual([{ _tag: "Mark", name: "s1" }])
      expect(yield* codec.decode(text({ event: "stop", stream_sid: "MZ1", stop: { call_sid: "CA1", reason: "callended" } }))).toEqual([{ _tag: "Stop" }])
      expect(yield* codec.decode(text({ event: "something-new" }))).toEqual([])
    }))

  it.effect("reads the rate and encoding start announces: 16 kHz PCM, or µ-law where the account streams it", () =>
    Effect.gen(function*() {
      const wide = VoicebotStream.session()
      expect(yield* wide.decode(start({ encoding: "base64", sample_rate: "16000" }))).toMatchObject([{ format: l16(16000) }])
      const mulaw = VoicebotStream.session()
      expect(yield* mulaw.decode(start({ encoding: "audio/x-mulaw", sample_rate: "8000" }))).toMatchObject([{ format: { encoding: "mulaw", sampleRate: 8000 } }])
      expect(VoicebotStream.formatOf({})).toEqual(l16(8000))
      expect(VoicebotStream.formatOf({ sample_rate: "banana" })).toEqual(l16(8000))
    }))

  it.effect("refuses binary frames, non-JSON, media before start, and a start without a stream", () =>
    Effect.gen(function*() {
      const codec = VoicebotStream.session()
      expect((yield* Effect.flip(codec.decode({ _tag: "Binary", data: new Uint8Array(2) }))).message).toContain("text frames only")
      expect((yield* Effect.flip(codec.decode({ _tag: "Text", text: "{" }))).message).toContain("not JSON")
      expect((yield* Effect.flip(codec.decode(text({ event: "media", media: { payload: "AAAA" } })))).message).toContain("before start")
      expect((yield* Effect.flip(codec.decode(text({ event: "start", start: {} })))).message).toContain("stream_sid")
      expect((yield* Effect.flip(codec.encode({ _tag: "Clear" }))).message).toContain("before the stream's start")
    }))

  it.effect("sends 20 ms frames as 100 ms chunks of whole frames; a mark sends what is held first, padded with silence", () =>
    Effect.gen(function*() {
      const codec = VoicebotStream.session()
      yield* codec.decode(start({ encoding: "audio/x-raw", sample_rate: "8000" }))
      const frame = (fill: number, bytes = 320) => ({ _tag: "Audio" as const, audio: { format: l16(8000), data: new Uint8Array(bytes).fill(fill) } })
      for (let i = 0; i < 4; i++) expect(yield* codec.encode(frame(i + 1))).toEqual([])
      const sent = yield* codec.encode(frame(5))
      expect(sent.length).toBe(1)
      const chunk = json(sent[0]!)
      expect(chunk).toMatchObject({ event: "media", stream_sid: "MZ1" })
      const bytes = Buffer.from(chunk.media.payload, "base64")
      expect(bytes.length).toBe(1600)
      expect([bytes[0], bytes[320], bytes[1599]]).toEqual([1, 2, 5])
      // A short last frame, then a mark: the audio goes first, padded to a whole frame, then the mark.
      expect(yield* codec.encode(frame(9, 100))).toEqual([])
      const marked = (yield* codec.encode({ _tag: "Mark", name: "s1" })).map(json)
      expect(marked.length).toBe(2)
      const tail = Buffer.from(marked[0].media.payload, "base64")
      expect(tail.length).toBe(320)
      expect([tail[99], tail[100], tail[319]]).toEqual([9, 0, 0])
      expect(marked[1]).toEqual({ event: "mark", stream_sid: "MZ1", mark: { name: "s1" } })
      // A mark with nothing held is just the mark; a clear drops what is held.
      expect((yield* codec.encode({ _tag: "Mark", name: "s2" })).map(json)).toEqual([{ event: "mark", stream_sid: "MZ1", mark: { name: "s2" } }])
      expect(yield* codec.encode(frame(7))).toEqual([])
      expect((yield* codec.encode({ _tag: "Clear" })).map(json)).toEqual([{ event: "clear", stream_sid: "MZ1" }])
      expect((yield* codec.encode({ _tag: "Mark", name: "s3" })).length).toBe(1)
      expect(yield* codec.encode({ _tag: "Stop" })).toEqual([])
    }))

  it.effect("refuses audio in another format than the stream's", () =>
    Effect.gen(function*() {
      const codec = VoicebotStream.session()
      yield* codec.decode(start({ encoding: "audio/x-raw", sample_rate: "8000" }))
      const wrong = yield* Effect.flip(codec.encode({ _tag: "Audio", audio: { format: l16(16000), data: new Uint8Array(640) } }))
      expect(wrong.message).toContain("l16le/16000 on a l16le/8000 stream")
    }))

  it("property: at any rate, audio sent in any pieces arrives whole, in order, in chunks of whole 20 ms frames", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.constantFrom(8000, 16000, 24000),
        FastCheck.array(FastCheck.uint8Array({ minLength: 1, maxLength: 2000 }), { maxLength: 12 }),
        (sampleRate, pieces) => {
          const codec = VoicebotStream.session()
          Effect.runSync(codec.decode(start({ encoding: "audio/x-raw", sample_rate: String(sampleRate) })))
          const frameBytes = (sampleRate / 50) * 2
          const out: Array<Buffer> = []
          const collect = (frames: ReadonlyArray<WebSocketFrame>) => {
            for (const f of frames) {
              const m = json(f)
              if (m.event === "media") out.push(Buffer.from(m.media.payload, "base64"))
            }
          }
          for (const piece of pieces) collect(Effect.runSync(codec.encode({ _tag: "Audio", audio: { format: l16(sampleRate), data: piece } })))
          collect(Effect.runSync(codec.encode({ _tag: "Mark", name: "end" })))
          const all = Buffer.concat(out)
          const said = Buffer.concat(pieces.map((p) => Buffer.from(p)))
          expect(all.subarray(0, said.length).equals(said)).toBe(true)
          expect(all.length - said.length).toBeLessThan(frameBytes)
          expect(all.subarray(said.length).every((b) => b === 0)).toBe(true)
          for (const chunk of out) expect(chunk.length % frameBytes).toBe(0)
          // Every chunk but the one a mark flushed is at least 100 ms.
          for (const chunk of out.slice(0, -1)) expect(chunk.length).toBeGreaterThanOrEqual(frameBytes * 5)
        }
      )
    )
  })
})
