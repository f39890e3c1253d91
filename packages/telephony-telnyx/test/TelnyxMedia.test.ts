import type { WebSocketFrame } from "@agentline/core/telephony/Media"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck, Logger } from "effect"
import { Telnyx } from "../src/index.js"

const { ClientState, Media } = Telnyx
const text = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })
const start = (encoding = "PCMU", sample_rate = 8000, extra: Record<string, unknown> = {}) =>
  text({
    event: "start",
    sequence_number: "1",
    stream_id: "stream-1",
    start: {
      user_id: "u-1",
      call_control_id: "v3:call-1",
      call_session_id: "s-1",
      from: "+13125550100",
      to: "+13125550199",
      client_state: ClientState.encode({ attempt_id: "7" }),
      media_format: { encoding, sample_rate, channels: 1 },
      ...extra
    }
  })
const media = (payload: Uint8Array, track = "inbound") =>
  text({ event: "media", sequence_number: "2", stream_id: "stream-1", media: { track, chunk: "1", timestamp: "20", payload: Buffer.from(payload).toString("base64") } })

describe("telnyx media codec", () => {
  it.effect("decodes connected, start (format and parameters from client_state), inbound audio, dtmf, marks and stop", () =>
    Effect.gen(function*() {
      const codec = yield* Media.media.open
      expect(yield* codec.decode(text({ event: "connected", version: "1.0.0" }))).toEqual([])
      expect(yield* codec.decode(start())).toEqual([{
        _tag: "Start",
        streamId: "stream-1",
        providerCallId: "v3:call-1",
        format: { encoding: "mulaw", sampleRate: 8000 },
        parameters: { attempt_id: "7" }
      }])
      const audio = new Uint8Array(160).fill(0xff)
      expect(yield* codec.decode(media(audio))).toEqual([{ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: audio } }])
      // Our own audio, as Telnyx plays it (both_tracks), is not the caller's.
      expect(yield* codec.decode(media(audio, "outbound"))).toEqual([])
      expect(yield* codec.decode(text({ event: "dtmf", stream_id: "stream-1", dtmf: { digit: "#" } }))).toEqual([{ _tag: "Dtmf", digit: "#" }])
      expect(yield* codec.decode(text({ event: "mark", stream_id: "stream-1", mark: { name: "greeting" } }))).toEqual([{ _tag: "Mark", name: "greeting" }])
      // Telnyx's error frame is logged (a warning with its payload) and yields nothing.
      const logged: Array<unknown> = []
      const capture = Logger.replace(Logger.defaultLogger, Logger.make(({ logLevel, message }) => void logged.push([logLevel.label, message])))
      expect(yield* codec.decode(text({ event: "error", payload: { code: 100002, title: "malformed", detail: "x" } })).pipe(Effect.provide(capture))).toEqual([])
      expect(logged).toEqual([["WARN", ["telnyx media: Telnyx reported a media stream error", { code: 100002, title: "malformed", detail: "x" }]]])
      expect(yield* codec.decode(text({ event: "stop", stop: { call_control_id: "v3:call-1" } }))).toEqual([{ _tag: "Stop" }])
    }))

  it.effect("carries the announced format: A-law, and L16 at 16 kHz in network byte order", () =>
    Effect.gen(function*() {
      const alaw = Media.session()
      expect((yield* alaw.decode(start("PCMA")))[0]).toMatchObject({ format: { encoding: "alaw", sampleRate: 8000 } })
      const l16 = Media.session()
      expect((yield* l16.decode(start("L16", 16000)))[0]).toMatchObject({ format: { encoding: "l16be", sampleRate: 16000 } })
      const frame = new Uint8Array([0x12, 0x34])
      expect(yield* l16.encode({ _tag: "Audio", audio: { format: { encoding: "l16be", sampleRate: 16000 }, data: frame } })).toEqual([
        text({ event: "media", media: { payload: "EjQ=" } })
      ])
      expect((yield* Effect.flip(l16.encode({ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: frame } }))).message)
        .toContain("takes l16be at 16000 Hz, not mulaw at 8000 Hz")
      expect((yield* Effect.flip(Media.session().decode(start("OPUS", 16000)))).message).toContain("cannot carry")
    }))

  it.effect("merges custom_parameters with our client_state, and ignores a client_state that is not ours", () =>
    Effect.gen(function*() {
      const ours = yield* Media.session().decode(start("PCMU", 8000, { custom_parameters: { customer: "c-1", n: 3 } }))
      expect(ours[0]).toMatchObject({ parameters: { customer: "c-1", attempt_id: "7" } })
      const foreign = yield* Media.session().decode(start("PCMU", 8000, { client_state: "aGF2ZSBhIG5pY2UgZGF5ID1d" }))
      expect(foreign[0]).toMatchObject({ parameters: {} })
      const absent = yield* Media.session().decode(start("PCMU", 8000, { client_state: null }))
      expect(absent[0]).toMatchObject({ parameters: {} })
    }))

  it.effect("encodes audio, marks and clear as Telnyx frames; stop is closing the socket", () =>
    Effect.gen(function*() {
      const codec = Media.session()
      yield* codec.decode(start())
      expect(yield* codec.encode({ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: new Uint8Array([1, 2, 3]) } }))
        .toEqual([text({ event: "media", media: { payload: "AQID" } })])
      expect(yield* codec.encode({ _tag: "Mark", name: "m-1" })).toEqual([text({ event: "mark", mark: { name: "m-1" } })])
      expect(yield* codec.encode({ _tag: "Clear" })).toEqual([text({ event: "clear" })])
      expect(yield* codec.encode({ _tag: "Stop" })).toEqual([])
    }))

  it.effect("refuses binary frames, audio before start, malformed known frames; ignores frames it does not know", () =>
    Effect.gen(function*() {
      const codec = Media.session()
      expect((yield* Effect.flip(codec.decode({ _tag: "Binary", data: new Uint8Array(2) }))).message).toContain("text frames only")
      expect((yield* Effect.flip(codec.decode(media(new Uint8Array(4))))).message).toContain("before the start")
      expect((yield* Effect.flip(codec.encode({ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: new Uint8Array(1) } }))).message)
        .toContain("before the stream started")
      for (const bad of [{ event: "dtmf", dtmf: { digit: "12" } }, { event: "media", media: { payload: "not base64!" } }, { event: "mark" }, { event: "start" }]) {
        expect((yield* Effect.flip(codec.decode(text(bad)))).message).toContain("bad frame")
      }
      expect((yield* Effect.flip(codec.decode({ _tag: "Text", text: "{" }))).message).toContain("bad frame")
      expect(yield* codec.decode(text({ event: "transcription", text: "hello" }))).toEqual([])
    }))

  it("client_state round-trips any parameters (property)", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.dictionary(FastCheck.string(), FastCheck.string()), (parameters) => {
        expect(ClientState.decode(ClientState.encode(parameters))).toEqual(parameters)
      })
    )
  })

  it.effect("audio round-trips through base64 byte for byte (property)", () =>
    Effect.gen(function*() {
      const codec = Media.session()
      yield* codec.decode(start())
      const samples = FastCheck.sample(FastCheck.uint8Array({ minLength: 0, maxLength: 400 }), 50)
      for (const data of samples) {
        const [frame] = yield* codec.encode({ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data } })
        const sent = JSON.parse((frame as { text: string }).text)
        const [event] = yield* codec.decode(text({ event: "media", media: { track: "inbound", payload: sent.media.payload } }))
        expect(event).toEqual({ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data } })
      }
    }))
})
