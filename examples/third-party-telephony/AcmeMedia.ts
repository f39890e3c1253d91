/**
 * Acme's media stream, as a `ProviderMedia` codec. Acme sends JSON text frames only, audio base64
 * in `media` events, in the format its `start` event announces (Acme streams 16 kHz linear PCM by
 * default; nothing here assumes a rate):
 *
 *   {"event":"start","stream_id","call_id","format":{"encoding":"l16le","rate":16000},"params":{...}}
 *   {"event":"media","payload":"<base64>"}  {"event":"dtmf","digit":"5"}  {"event":"mark","name"}  {"event":"stop"}
 *
 * and takes `media`, `mark`, `clear` and `hangup` back.
 */
import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import type { MediaCommand, MediaEvent, MediaSession, ProviderMedia, WebSocketFrame } from "@agentline/core/telephony/Media"
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { Effect, Either, Schema } from "effect"

const AcmeMediaMessage = Schema.Union(
  Schema.Struct({
    event: Schema.Literal("start"),
    stream_id: Schema.String,
    call_id: Schema.String,
    format: Schema.Struct({ encoding: Schema.Literal("mulaw", "alaw", "l16le", "l16be"), rate: Schema.Int }),
    params: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) })
  }),
  Schema.Struct({ event: Schema.Literal("media"), payload: Schema.Uint8ArrayFromBase64 }),
  Schema.Struct({ event: Schema.Literal("dtmf"), digit: Schema.String }),
  Schema.Struct({ event: Schema.Literal("mark"), name: Schema.String }),
  Schema.Struct({ event: Schema.Literal("stop") })
)

const decodeMessage = Schema.decodeUnknownEither(Schema.parseJson(AcmeMediaMessage))

const failure = (message: string) => new TelephonyError({ provider: "acme", message: `Acme media: ${message}`, retryable: false })

const json = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })

export const session = (): MediaSession => {
  let format: AudioFormat | undefined

  const decode = (frame: WebSocketFrame): Effect.Effect<ReadonlyArray<MediaEvent>, TelephonyError> => {
    if (frame._tag === "Binary") return Effect.fail(failure("unexpected binary frame"))
    const message = decodeMessage(frame.text)
    if (Either.isLeft(message)) return Effect.fail(failure("unreadable message"))
    const m = message.right
    switch (m.event) {
      case "start":
        format = { encoding: m.format.encoding, sampleRate: m.format.rate }
        return Effect.succeed([{ _tag: "Start", streamId: m.stream_id, providerCallId: m.call_id, format, parameters: m.params }])
      case "media":
        return format === undefined
          ? Effect.fail(failure("audio before start"))
          : Effect.succeed([{ _tag: "Audio", audio: { format, data: m.payload } }])
      case "dtmf":
        return Effect.succeed([{ _tag: "Dtmf", digit: m.digit }])
      case "mark":
        return Effect.succeed([{ _tag: "Mark", name: m.name }])
      case "stop":
        return Effect.succeed([{ _tag: "Stop" }])
    }
  }

  const encode = (command: MediaCommand): Effect.Effect<ReadonlyArray<WebSocketFrame>, TelephonyError> => {
    switch (command._tag) {
      case "Audio": {
        const { data, format: given } = command.audio
        if (format === undefined) return Effect.fail(failure("no audio can be sent before start"))
        if (given.encoding !== format.encoding || given.sampleRate !== format.sampleRate) {
          return Effect.fail(failure(`the stream takes ${format.encoding} at ${format.sampleRate} Hz`))
        }
        return Effect.succeed([json({ event: "media", payload: Buffer.from(data).toString("base64") })])
      }
      case "Mark":
        return Effect.succeed([json({ event: "mark", name: command.name })])
      case "Clear":
        return Effect.succeed([json({ event: "clear" })])
      case "Stop":
        return Effect.succeed([json({ event: "hangup" })])
    }
  }

  return { decode, encode }
}

export const media: ProviderMedia = { open: Effect.sync(session) }
