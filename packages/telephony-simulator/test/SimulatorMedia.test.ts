import type { AudioEncoding, AudioFormat } from "@agentline/core/audio/AudioFormat"
import type { WebSocketFrame } from "@agentline/core/telephony/Media"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import { Simulator } from "../src/index.js"

const text = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })
const start = (encoding: string, sampleRate: number) =>
  text({ event: "start", stream_id: "st-1", call_id: "sim-1", encoding, sample_rate: sampleRate, parameters: { attempt_id: "7" } })

describe("simulator media codec", () => {
  it.effect("decodes start, audio in the announced format, dtmf, marks and stop", () =>
    Effect.gen(function*() {
      const codec = yield* Simulator.make.pipe(Effect.flatMap((sim) => sim.media.open), Effect.scoped)
      expect(yield* codec.decode(start("l16le", 16000))).toEqual([{
        _tag: "Start",
        streamId: "st-1",
        providerCallId: "sim-1",
        format: { encoding: "l16le", sampleRate: 16000 },
        parameters: { attempt_id: "7" }
      }])
      const audio = new Uint8Array([1, 2, 3, 4])
      expect(yield* codec.decode({ _tag: "Binary", data: audio })).toEqual([
        { _tag: "Audio", audio: { format: { encoding: "l16le", sampleRate: 16000 }, data: audio } }
      ])
      expect(yield* codec.decode(text({ event: "dtmf", digit: "#" }))).toEqual([{ _tag: "Dtmf", digit: "#" }])
      expect(yield* codec.decode(text({ event: "mark", name: "greeting" }))).toEqual([{ _tag: "Mark", name: "greeting" }])
      expect(yield* codec.decode(text({ event: "stop" }))).toEqual([{ _tag: "Stop" }])
    }))

  it.effect("refuses audio before start, unknown messages and a bad digit", () =>
    Effect.gen(function*() {
      const codec = Simulator.Media.session()
      expect((yield* Effect.flip(codec.decode({ _tag: "Binary", data: new Uint8Array(2) }))).message).toContain("before the start")
      expect((yield* Effect.flip(codec.encode({ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: new Uint8Array(1) } }))).message)
        .toContain("before the stream started")
      expect((yield* Effect.flip(codec.decode(text({ event: "hold" })))).message).toContain("bad message")
      expect((yield* Effect.flip(codec.decode(text({ event: "dtmf", digit: "12" })))).message).toContain("bad message")
      expect((yield* Effect.flip(codec.decode({ _tag: "Text", text: "{" }))).message).toContain("bad message")
    }))

  it.effect("encodes commands; audio must be in the stream's own format", () =>
    Effect.gen(function*() {
      const codec = Simulator.Media.session()
      yield* codec.decode(start("mulaw", 8000))
      const frame = { format: { encoding: "mulaw", sampleRate: 8000 } as AudioFormat, data: new Uint8Array([0xff, 0x7f]) }
      expect(yield* codec.encode({ _tag: "Audio", audio: frame })).toEqual([{ _tag: "Binary", data: frame.data }])
      expect(yield* codec.encode({ _tag: "Mark", name: "m1" })).toEqual([text({ event: "mark", name: "m1" })])
      expect(yield* codec.encode({ _tag: "Clear" })).toEqual([text({ event: "clear" })])
      expect(yield* codec.encode({ _tag: "Stop" })).toEqual([text({ event: "stop" })])
      const wrong = yield* Effect.flip(codec.encode({ _tag: "Audio", audio: { ...frame, format: { encoding: "mulaw", sampleRate: 16000 } } }))
      expect(wrong.message).toContain("not mulaw at 16000 Hz")
    }))

  it("carries any encoding and sample rate through unchanged (property)", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.constantFrom<AudioEncoding>("mulaw", "alaw", "l16le", "l16be"),
        FastCheck.integer({ min: 4000, max: 192_000 }),
        FastCheck.uint8Array({ minLength: 0, maxLength: 64 }),
        (encoding, sampleRate, data) => {
          const codec = Simulator.Media.session()
          Effect.runSync(codec.decode(start(encoding, sampleRate)))
          const [event] = Effect.runSync(codec.decode({ _tag: "Binary", data }))
          expect(event).toEqual({ _tag: "Audio", audio: { format: { encoding, sampleRate }, data } })
          expect(Effect.runSync(codec.encode({ _tag: "Audio", audio: { format: { encoding, sampleRate }, data } }))).toEqual([{ _tag: "Binary", data }])
        }
      ),
      { numRuns: 100 }
    )
  })
})
