/**
 * Twilio Media Streams (bidirectional, `<Connect><Stream>`): JSON text frames only, audio as base64
 * G.711 µ-law at 8 kHz, mono, without headers.
 *
 *   from Twilio  connected · start {streamSid, callSid, customParameters, mediaFormat} · media {track, payload}
 *                dtmf {digit} · mark {name} (our mark, played or cleared) · stop
 *   to Twilio    media {payload} · mark {name} · clear
 *
 * Twilio has no "stop" message of ours: closing the WebSocket ends `<Connect>` (and the call, with the
 * `<Hangup/>` that follows it in our TwiML).
 */
import type { AudioFormat } from "@agentline/telephony-kit/AudioFormat"
import type { MediaCommand, MediaEvent, MediaSession, ProviderMedia, WebSocketFrame } from "@agentline/telephony-kit/Media"
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either, ParseResult, Schema } from "effect"

export const FORMAT: AudioFormat = { encoding: "mulaw", sampleRate: 8000 }

const error = (message: string) => new TelephonyError({ provider: "twilio", message: `twilio media: ${message}`, retryable: false })

const Start = Schema.Struct({
  event: Schema.Literal("start"),
  streamSid: Schema.String,
  start: Schema.Struct({
    streamSid: Schema.optional(Schema.String),
    callSid: Schema.optional(Schema.String),
    customParameters: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }),
    mediaFormat: Schema.optional(Schema.Struct({ encoding: Schema.String, sampleRate: Schema.Number, channels: Schema.optional(Schema.Number) }))
  })
})

export const TwilioMessage = Schema.Union(
  Schema.Struct({ event: Schema.Literal("connected") }),
  Start,
  Schema.Struct({
    event: Schema.Literal("media"),
    media: Schema.Struct({ track: Schema.optional(Schema.String), payload: Schema.String })
  }),
  Schema.Struct({ event: Schema.Literal("dtmf"), dtmf: Schema.Struct({ digit: Schema.String }) }),
  Schema.Struct({ event: Schema.Literal("mark"), mark: Schema.Struct({ name: Schema.String }) }),
  Schema.Struct({ event: Schema.Literal("stop") })
)

const decodeMessage = Schema.decodeUnknownEither(Schema.parseJson(TwilioMessage))

/**
 * The caller's audio, 50 messages a second a call, without the schema's walk over the union: a `media`
 * message whose fields have the expected types is taken as it is; anything else goes through the schema.
 */
const fastMedia = (text: string): { readonly track: string | undefined; readonly payload: string } | undefined => {
  if (!text.includes("\"media\"")) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof parsed !== "object" || parsed === null || !("event" in parsed) || parsed.event !== "media") return undefined
  if (!("media" in parsed) || typeof parsed.media !== "object" || parsed.media === null) return undefined
  const media = parsed.media
  const payload = "payload" in media ? media.payload : undefined
  const track = "track" in media ? media.track : undefined
  if (typeof payload !== "string" || (track !== undefined && typeof track !== "string")) return undefined
  return { track, payload }
}

const text = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })

/** A codec for one stream: it learns the stream's id from `start` (every message we send names it). */
export const session = (): MediaSession => {
  let streamSid: string | undefined

  const decode = (frame: WebSocketFrame) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<MediaEvent>, TelephonyError> => {
      if (frame._tag === "Binary") return Effect.fail(error("Twilio sends text frames only"))
      const audio = fastMedia(frame.text)
      if (audio !== undefined) {
        if (audio.track !== undefined && audio.track !== "inbound") return Effect.succeed([])
        return Effect.succeed([{ _tag: "Audio", audio: { format: FORMAT, data: new Uint8Array(Buffer.from(audio.payload, "base64")) } }])
      }
      const message = decodeMessage(frame.text)
      if (Either.isLeft(message)) return Effect.fail(error(`bad message: ${ParseResult.TreeFormatter.formatErrorSync(message.left)}`))
      const m = message.right
      switch (m.event) {
        case "connected":
          return Effect.succeed([])
        case "start": {
          const format = m.start.mediaFormat
          if (format !== undefined && (format.encoding !== "audio/x-mulaw" || format.sampleRate !== 8000)) {
            return Effect.fail(error(`unexpected media format ${format.encoding} at ${format.sampleRate} Hz`))
          }
          streamSid = m.streamSid
          return Effect.succeed([{
            _tag: "Start",
            streamId: m.streamSid,
            providerCallId: m.start.callSid,
            format: FORMAT,
            parameters: m.start.customParameters
          }])
        }
        case "media":
          // Only the caller's audio comes to us on a bidirectional stream; ignore anything else.
          if (m.media.track !== undefined && m.media.track !== "inbound") return Effect.succeed([])
          return Effect.succeed([{ _tag: "Audio", audio: { format: FORMAT, data: new Uint8Array(Buffer.from(m.media.payload, "base64")) } }])
        case "dtmf":
          return Effect.succeed([{ _tag: "Dtmf", digit: m.dtmf.digit }])
        case "mark":
          return Effect.succeed([{ _tag: "Mark", name: m.mark.name }])
        case "stop":
          return Effect.succeed([{ _tag: "Stop" }])
      }
    })

  const encode = (command: MediaCommand) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<WebSocketFrame>, TelephonyError> => {
      if (command._tag === "Stop") return Effect.succeed([])
      if (streamSid === undefined) return Effect.fail(error("nothing can be sent before the stream started"))
      switch (command._tag) {
        case "Audio": {
          const { format } = command.audio
          if (format.encoding !== FORMAT.encoding || format.sampleRate !== FORMAT.sampleRate) {
            return Effect.fail(error(`the stream takes mulaw at 8000 Hz, not ${format.encoding} at ${format.sampleRate} Hz`))
          }
          return Effect.succeed([text({ event: "media", streamSid, media: { payload: Buffer.from(command.audio.data).toString("base64") } })])
        }
        case "Mark":
          return Effect.succeed([text({ event: "mark", streamSid, mark: { name: command.name } })])
        case "Clear":
          return Effect.succeed([text({ event: "clear", streamSid })])
      }
    })

  return { decode, encode }
}

export const media: ProviderMedia = { open: Effect.sync(session) }
