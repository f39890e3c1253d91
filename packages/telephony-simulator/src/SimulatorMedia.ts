/**
 * The simulator's media stream protocol and its codec. Text frames carry JSON control messages,
 * binary frames carry audio in the format the `start` message announced (any encoding and rate:
 * nothing here assumes 8 kHz):
 *
 *   from the simulator  {"event":"start","stream_id","call_id","encoding","sample_rate","parameters"}
 *                       <binary audio>  {"event":"dtmf","digit"}  {"event":"mark","name"}  {"event":"stop"}
 *   to the simulator    <binary audio>  {"event":"mark","name"}  {"event":"clear"}  {"event":"stop"}
 */
import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import type { MediaCommand, MediaEvent, MediaSession, ProviderMedia, WebSocketFrame } from "@agentline/core/telephony/Media"
import { Effect, Either, ParseResult, Schema } from "effect"
import { error } from "./SimulatorWebhooks.js"

const AudioEncoding = Schema.Literal("mulaw", "alaw", "l16le", "l16be")

export const ControlMessage = Schema.Union(
  Schema.Struct({
    event: Schema.Literal("start"),
    stream_id: Schema.String,
    call_id: Schema.optional(Schema.String),
    encoding: AudioEncoding,
    sample_rate: Schema.Int.pipe(Schema.between(4000, 192_000)),
    parameters: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) })
  }),
  Schema.Struct({ event: Schema.Literal("dtmf"), digit: Schema.String.pipe(Schema.pattern(/^[0-9A-D*#]$/)) }),
  Schema.Struct({ event: Schema.Literal("mark"), name: Schema.String }),
  Schema.Struct({ event: Schema.Literal("stop") })
)

const decodeControl = Schema.decodeUnknownEither(Schema.parseJson(ControlMessage))

const sameFormat = (a: AudioFormat, b: AudioFormat) => a.encoding === b.encoding && a.sampleRate === b.sampleRate

const text = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })

/** A codec for one connection: it learns the audio format from `start`. */
export const session = (): MediaSession => {
  let format: AudioFormat | undefined

  const decode = (frame: WebSocketFrame) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<MediaEvent>, ReturnType<typeof error>> => {
      if (frame._tag === "Binary") {
        if (format === undefined) return Effect.fail(error("simulator media: audio before the start message"))
        return Effect.succeed([{ _tag: "Audio", audio: { format, data: frame.data } }])
      }
      const message = decodeControl(frame.text)
      if (Either.isLeft(message)) {
        return Effect.fail(error(`simulator media: bad message: ${ParseResult.TreeFormatter.formatErrorSync(message.left)}`))
      }
      const m = message.right
      switch (m.event) {
        case "start":
          format = { encoding: m.encoding, sampleRate: m.sample_rate }
          return Effect.succeed([{ _tag: "Start", streamId: m.stream_id, providerCallId: m.call_id, format, parameters: m.parameters }])
        case "dtmf":
          return Effect.succeed([{ _tag: "Dtmf", digit: m.digit }])
        case "mark":
          return Effect.succeed([{ _tag: "Mark", name: m.name }])
        case "stop":
          return Effect.succeed([{ _tag: "Stop" }])
      }
    })

  const encode = (command: MediaCommand) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<WebSocketFrame>, ReturnType<typeof error>> => {
      switch (command._tag) {
        case "Audio": {
          if (format === undefined) return Effect.fail(error("simulator media: no audio can be sent before the stream started"))
          if (!sameFormat(format, command.audio.format)) {
            return Effect.fail(error(
              `simulator media: the stream takes ${format.encoding} at ${format.sampleRate} Hz, ` +
                `not ${command.audio.format.encoding} at ${command.audio.format.sampleRate} Hz`
            ))
          }
          return Effect.succeed([{ _tag: "Binary", data: command.audio.data }])
        }
        case "Mark":
          return Effect.succeed([text({ event: "mark", name: command.name })])
        case "Clear":
          return Effect.succeed([text({ event: "clear" })])
        case "Stop":
          return Effect.succeed([text({ event: "stop" })])
      }
    })

  return { decode, encode }
}

export const media: ProviderMedia = { open: Effect.sync(session) }
