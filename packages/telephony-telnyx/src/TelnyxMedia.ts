/**
 * The codec of Telnyx's media-streaming WebSocket (JSON text frames only):
 *
 *   from Telnyx  {"event":"connected","version":"1.0.0"}
 *                {"event":"start","sequence_number","stream_id","start":{"call_control_id","client_state",
 *                  "custom_parameters","media_format":{"encoding":"PCMU","sample_rate":8000,"channels":1}}}
 *                {"event":"media","sequence_number","stream_id","media":{"track":"inbound"|"outbound","chunk",
 *                  "timestamp","payload":"<base64 RTP payload, no header>"}}
 *                {"event":"dtmf","dtmf":{"digit"}}  {"event":"mark","mark":{"name"}}
 *                {"event":"error","payload":{"code","title","detail"}}  {"event":"stop","stop":{...}}
 *   to Telnyx    {"event":"media","media":{"payload":"<base64>"}}  {"event":"mark","mark":{"name"}}
 *                {"event":"clear"}
 *
 * The adapter asks for the same codec and rate both ways (`stream_codec`, `stream_bidirectional_codec`,
 * `stream_bidirectional_sampling_rate`), so audio sent back must be in the format `start` announced.
 * PCMU is µ-law, PCMA A-law, L16 16-bit linear PCM in network byte order (RTP, RFC 3551). With
 * `both_tracks` Telnyx also streams the `outbound` track — our own audio as the caller hears it — which
 * is not caller audio and is dropped here. Telnyx has no frame to stop a stream: closing the socket or
 * hanging up the call (`calls.hangUp`) does, so `Stop` encodes to nothing.
 */
import type { AudioEncoding, AudioFormat } from "@agentline/core/audio/AudioFormat"
import type { MediaCommand, MediaEvent, MediaSession, ProviderMedia, WebSocketFrame } from "@agentline/core/telephony/Media"
import type { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { Effect, Either, ParseResult, Schema } from "effect"
import * as ClientState from "./ClientState.js"
import { error } from "./TelnyxEvents.js"

/** Telnyx's codec names and ours; codecs without an entry (G722, OPUS, AMR-WB) cannot be carried. */
export const encodings: Readonly<Record<string, AudioEncoding>> = { PCMU: "mulaw", PCMA: "alaw", L16: "l16be" }

export const codecName = (encoding: AudioEncoding): string | undefined =>
  Object.entries(encodings).find(([, ours]) => ours === encoding)?.[0]

const Base64 = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9+/]*={0,2}$/, { message: () => "a base64 payload" }))

export const Frame = Schema.Union(
  Schema.Struct({ event: Schema.Literal("connected"), version: Schema.optional(Schema.String) }),
  Schema.Struct({
    event: Schema.Literal("start"),
    stream_id: Schema.String,
    start: Schema.Struct({
      call_control_id: Schema.optional(Schema.String),
      client_state: Schema.optional(Schema.NullOr(Schema.String)),
      custom_parameters: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
      media_format: Schema.Struct({
        encoding: Schema.String,
        sample_rate: Schema.Int.pipe(Schema.between(4000, 192_000)),
        channels: Schema.optional(Schema.Int)
      })
    })
  }),
  Schema.Struct({
    event: Schema.Literal("media"),
    media: Schema.Struct({ track: Schema.optional(Schema.String), payload: Base64 })
  }),
  Schema.Struct({ event: Schema.Literal("dtmf"), dtmf: Schema.Struct({ digit: Schema.String.pipe(Schema.pattern(/^[0-9A-D*#]$/)) }) }),
  Schema.Struct({ event: Schema.Literal("mark"), mark: Schema.Struct({ name: Schema.String }) }),
  Schema.Struct({ event: Schema.Literal("stop") }),
  Schema.Struct({ event: Schema.Literal("error"), payload: Schema.optional(Schema.Unknown) })
)

const decodeFrame = Schema.decodeUnknownEither(Schema.parseJson(Frame))
/** Only the event name, to tell a frame we do not know (ignored) from a malformed one (refused). */
const decodeEventName = Schema.decodeUnknownEither(Schema.parseJson(Schema.Struct({ event: Schema.String })))
const known = new Set(["connected", "start", "media", "dtmf", "mark", "stop", "error"])

const text = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })

const sameFormat = (a: AudioFormat, b: AudioFormat) => a.encoding === b.encoding && a.sampleRate === b.sampleRate

/** A codec for one media connection: it learns the stream's format from `start`. */
export const session = (): MediaSession => {
  let format: AudioFormat | undefined

  const decode = (frame: WebSocketFrame) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<MediaEvent>, TelephonyError> => {
      if (frame._tag === "Binary") return Effect.fail(error("telnyx media: Telnyx sends text frames only, not binary"))
      const decoded = decodeFrame(frame.text)
      if (Either.isLeft(decoded)) {
        const name = decodeEventName(frame.text)
        // A frame Telnyx added after this adapter was written is not a fault.
        if (Either.isRight(name) && !known.has(name.right.event)) return Effect.succeed([])
        return Effect.fail(error(`telnyx media: bad frame: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`))
      }
      const m = decoded.right
      switch (m.event) {
        case "connected":
          return Effect.succeed([])
        case "start": {
          const encoding = encodings[m.start.media_format.encoding.toUpperCase()]
          if (encoding === undefined) {
            return Effect.fail(error(`telnyx media: the stream is ${m.start.media_format.encoding}, which Agentline cannot carry (PCMU, PCMA or L16)`))
          }
          format = { encoding, sampleRate: m.start.media_format.sample_rate }
          const custom = Object.entries(m.start.custom_parameters ?? {}).filter((e): e is [string, string] => typeof e[1] === "string")
          return Effect.succeed([{
            _tag: "Start",
            streamId: m.stream_id,
            providerCallId: m.start.call_control_id,
            format,
            parameters: { ...Object.fromEntries(custom), ...ClientState.decode(m.start.client_state) }
          }])
        }
        case "media": {
          if (m.media.track === "outbound") return Effect.succeed([])
          if (format === undefined) return Effect.fail(error("telnyx media: audio before the start frame"))
          return Effect.succeed([{ _tag: "Audio", audio: { format, data: new Uint8Array(Buffer.from(m.media.payload, "base64")) } }])
        }
        case "dtmf":
          return Effect.succeed([{ _tag: "Dtmf", digit: m.dtmf.digit }])
        case "mark":
          return Effect.succeed([{ _tag: "Mark", name: m.mark.name }])
        case "stop":
          return Effect.succeed([{ _tag: "Stop" }])
        case "error":
          // Telnyx reports a refused frame of ours (bad payload, wrong codec); the stream goes on.
          return Effect.as(Effect.logWarning("telnyx media: Telnyx reported a media stream error", m.payload), [])
      }
    })

  const encode = (command: MediaCommand) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<WebSocketFrame>, TelephonyError> => {
      switch (command._tag) {
        case "Audio": {
          if (format === undefined) return Effect.fail(error("telnyx media: no audio can be sent before the stream started"))
          if (!sameFormat(format, command.audio.format)) {
            return Effect.fail(error(
              `telnyx media: the stream takes ${format.encoding} at ${format.sampleRate} Hz, ` +
                `not ${command.audio.format.encoding} at ${command.audio.format.sampleRate} Hz`
            ))
          }
          return Effect.succeed([text({ event: "media", media: { payload: Buffer.from(command.audio.data).toString("base64") } })])
        }
        case "Mark":
          return Effect.succeed([text({ event: "mark", mark: { name: command.name } })])
        case "Clear":
          return Effect.succeed([text({ event: "clear" })])
        case "Stop":
          return Effect.succeed([])
      }
    })

  return { decode, encode }
}

export const media: ProviderMedia = { open: Effect.sync(session) }
