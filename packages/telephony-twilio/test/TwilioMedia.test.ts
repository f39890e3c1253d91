import { expect, it } from "@effect/vitest"
import { Effect, FastCheck, Schema } from "effect"
import { Twilio } from "../src/index.js"

const text = (message: unknown) => ({ _tag: "Text" as const, text: JSON.stringify(message) })

it.effect("decodes Twilio's media protocol and encodes ours with the stream's id", () =>
  Effect.gen(function*() {
    const session = Twilio.Media.session()
    // Nothing can be sent before `start` names the stream.
    expect((yield* Effect.either(session.encode({ _tag: "Mark", name: "m" })))._tag).toBe("Left")
    expect(yield* session.decode(text({ event: "connected", protocol: "Call", version: "1.0.0" }))).toEqual([])
    expect(yield* session.decode(text({
      event: "start",
      sequenceNumber: "1",
      streamSid: "MZ1",
      start: {
        streamSid: "MZ1",
        accountSid: "AC1",
        callSid: "CA1",
        tracks: ["inbound"],
        customParameters: { attempt_id: "7" },
        mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 }
      }
    }))).toEqual([{
      _tag: "Start",
      streamId: "MZ1",
      providerCallId: "CA1",
      format: { encoding: "mulaw", sampleRate: 8000 },
      parameters: { attempt_id: "7" }
    }])
    const payload = new Uint8Array([0xff, 0x7f, 0x00, 0x80])
    expect(yield* session.decode(text({
      event: "media",
      sequenceNumber: "2",
      streamSid: "MZ1",
      media: { track: "inbound", chunk: "1", timestamp: "5", payload: Buffer.from(payload).toString("base64") }
    }))).toEqual([{ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: payload } }])
    expect(yield* session.decode(text({ event: "dtmf", streamSid: "MZ1", sequenceNumber: "3", dtmf: { track: "inbound_track", digit: "5" } })))
      .toEqual([{ _tag: "Dtmf", digit: "5" }])
    expect(yield* session.decode(text({ event: "mark", streamSid: "MZ1", sequenceNumber: "4", mark: { name: "greeting" } })))
      .toEqual([{ _tag: "Mark", name: "greeting" }])
    expect(yield* session.decode(text({ event: "stop", streamSid: "MZ1", sequenceNumber: "5", stop: { accountSid: "AC1", callSid: "CA1" } })))
      .toEqual([{ _tag: "Stop" }])

    expect(yield* session.encode({ _tag: "Audio", audio: { format: { encoding: "mulaw", sampleRate: 8000 }, data: payload } }))
      .toEqual([text({ event: "media", streamSid: "MZ1", media: { payload: Buffer.from(payload).toString("base64") } })])
    expect(yield* session.encode({ _tag: "Mark", name: "m1" })).toEqual([text({ event: "mark", streamSid: "MZ1", mark: { name: "m1" } })])
    expect(yield* session.encode({ _tag: "Clear" })).toEqual([text({ event: "clear", streamSid: "MZ1" })])
    expect(yield* session.encode({ _tag: "Stop" })).toEqual([])
  }))

it.effect("refuses audio in another format, binary frames, malformed messages and other media formats", () =>
  Effect.gen(function*() {
    const session = Twilio.Media.session()
    yield* session.decode(text({ event: "start", streamSid: "MZ1", start: { callSid: "CA1" } }))
    expect((yield* Effect.either(session.encode({ _tag: "Audio", audio: { format: { encoding: "l16le", sampleRate: 16000 }, data: new Uint8Array(2) } }))))
      .toMatchObject({ _tag: "Left" })
    expect((yield* Effect.either(session.decode({ _tag: "Binary", data: new Uint8Array(1) })))._tag).toBe("Left")
    expect((yield* Effect.either(session.decode(text({ event: "media" })))) ._tag).toBe("Left")
    expect((yield* Effect.either(session.decode({ _tag: "Text", text: "{" })))._tag).toBe("Left")
    expect((yield* Effect.either(session.decode(text({
      event: "start",
      streamSid: "MZ2",
      start: { mediaFormat: { encoding: "audio/l16", sampleRate: 16000 } }
    }))))._tag).toBe("Left")
    // The outbound track (our own audio) never comes back as the caller's.
    expect(yield* session.decode(text({ event: "media", media: { track: "outbound", payload: "AA==" } }))).toEqual([])
  }))

it.effect.prop(
  "caller audio decodes as the schema reads it, whatever the media message holds (the fast path agrees with the schema)",
  [FastCheck.record({
    event: FastCheck.constantFrom("media", "mark", "dtmf"),
    streamSid: FastCheck.constant("MZ1"),
    media: FastCheck.oneof(
      FastCheck.record({
        track: FastCheck.option(FastCheck.oneof(FastCheck.constantFrom("inbound", "outbound"), FastCheck.integer()), { nil: undefined }),
        payload: FastCheck.oneof(FastCheck.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString("base64")), FastCheck.integer()),
        chunk: FastCheck.string()
      }, { requiredKeys: ["payload"] }),
      FastCheck.constant(null)
    )
  }, { requiredKeys: ["event", "streamSid"] })],
  ([message]) =>
    Effect.gen(function*() {
      const session = Twilio.Media.session()
      const json = JSON.stringify(message)
      const decoded = yield* Effect.either(session.decode({ _tag: "Text", text: json }))
      const bySchema = Schema.decodeUnknownEither(Schema.parseJson(Twilio.Media.TwilioMessage))(json)
      expect(decoded._tag).toBe(bySchema._tag)
      if (bySchema._tag === "Right" && decoded._tag === "Right" && bySchema.right.event === "media") {
        const m = bySchema.right.media
        expect(decoded.right).toEqual(
          m.track !== undefined && m.track !== "inbound"
            ? []
            : [{ _tag: "Audio", audio: { format: Twilio.Media.FORMAT, data: new Uint8Array(Buffer.from(m.payload, "base64")) } }]
        )
      }
    })
)
