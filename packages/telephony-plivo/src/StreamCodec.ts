/**
 * The codec of Plivo's audio stream protocol (JSON text frames, base64 audio):
 *
 *   from Plivo  start {sequenceNumber, start: {callId, streamId, accountId, tracks, mediaFormat: {encoding, sampleRate}}, extra_headers}
 *               media {streamId, media: {track, timestamp, chunk, payload}}   dtmf {dtmf: {digit}}
 *               playedStream {streamId, name}   clearedAudio {streamId}   (Vobiz also: stop)
 *   to Plivo    playAudio {media: {contentType, sampleRate, payload}}   checkpoint {streamId, name}   clearAudio {streamId}
 *
 * The stream ends when the socket closes (there is no stop command to send: `Stop` encodes to no frame
 * and the server closes the socket). Plivo acknowledges only checkpoints whose audio was played; the
 * codec reports the ones a clear dropped as reached when `clearedAudio` confirms the clear, so every
 * mark comes back, as with the other providers. Audio is carried in the format `start` announced: µ-law, or L16
 * at 8/16 kHz (Vobiz also 24 kHz) in the carrier's byte order (Vobiz streams big-endian L16 to us and
 * takes little-endian back). Commands take L16 in either byte order and send what the carrier takes.
 */
import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import type { MediaCommand, MediaEvent, MediaSession, ProviderMedia, WebSocketFrame } from "@agentline/core/telephony/Media"
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { Effect, Either, ParseResult, Schema } from "effect"
import { decodeParameters } from "./Answer.js"
import type { PlivoDialect } from "./Dialect.js"

const Start = Schema.Struct({
  event: Schema.Literal("start"),
  start: Schema.Struct({
    callId: Schema.optional(Schema.String),
    streamId: Schema.String,
    mediaFormat: Schema.Struct({ encoding: Schema.String, sampleRate: Schema.Number })
  }),
  extra_headers: Schema.optional(Schema.NullOr(Schema.String))
})
const Media = Schema.Struct({
  event: Schema.Literal("media"),
  media: Schema.Struct({ track: Schema.optional(Schema.String), payload: Schema.String })
})
const Dtmf = Schema.Struct({ event: Schema.Literal("dtmf"), dtmf: Schema.Struct({ digit: Schema.String }) })
const Played = Schema.Struct({ event: Schema.Literal("playedStream", "played"), name: Schema.String })
const Envelope = Schema.parseJson(Schema.Struct({ event: Schema.String }))

/** The schema of each event we read; other events (`clearedAudio`, newer ones) are ignored. */
const byEvent: Readonly<Record<string, Schema.Schema<any, any>>> = { start: Start, media: Media, dtmf: Dtmf, playedStream: Played, played: Played }

/** The wire content type of an encoding (`audio/x-l16` whatever its byte order). */
export const contentTypeOf = (format: AudioFormat): string => (format.encoding === "mulaw" ? "audio/x-mulaw" : "audio/x-l16")

export const formatOf = (dialect: PlivoDialect, encoding: string, sampleRate: number): AudioFormat | undefined => {
  const e = encoding.toLowerCase().split(";")[0]!.trim()
  if (e === "audio/x-mulaw" || e === "audio/mulaw" || e === "mulaw") return { encoding: "mulaw", sampleRate }
  if (e === "audio/x-l16" || e === "audio/l16" || e === "l16") return { encoding: dialect.l16Inbound, sampleRate }
  return undefined
}

/** Swaps the bytes of 16-bit samples (L16 little-endian ↔ big-endian). */
export const swapBytes = (data: Uint8Array): Uint8Array => {
  const out = new Uint8Array(data.length)
  for (let i = 0; i + 1 < data.length; i += 2) {
    out[i] = data[i + 1]!
    out[i + 1] = data[i]!
  }
  return out
}

const text = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })

export const session = (dialect: PlivoDialect): MediaSession => {
  const fail = (message: string) => Effect.fail(new TelephonyError({ provider: dialect.name, message: `${dialect.displayName} media: ${message}`, retryable: false }))
  let streamId: string | undefined
  let format: AudioFormat | undefined
  /** Checkpoints sent and not yet reached; those a clear dropped, until the clear is confirmed. */
  let pending: Array<string> = []
  let cleared: Array<string> = []

  // Both are suspended: the codec's state (stream id, format, checkpoints) is read when they run, not
  // when a caller builds the effect (an effect built once, such as a `clear`, may run many times).
  const decode = (frame: WebSocketFrame) => Effect.suspend(() => decodeNow(frame))
  const encode = (command: MediaCommand) => Effect.suspend(() => encodeNow(command))

  const decodeNow = (frame: WebSocketFrame): Effect.Effect<ReadonlyArray<MediaEvent>, TelephonyError> => {
    if (frame._tag === "Binary") return fail("binary frames are not part of the protocol")
    const envelope = Schema.decodeUnknownEither(Envelope)(frame.text)
    if (Either.isLeft(envelope)) return fail(`bad message: ${ParseResult.TreeFormatter.formatErrorSync(envelope.left)}`)
    const schema = byEvent[envelope.right.event]
    const decoded = schema === undefined ? Either.right(envelope.right) : Schema.decodeUnknownEither(Schema.parseJson(schema))(frame.text)
    if (Either.isLeft(decoded)) return fail(`bad ${envelope.right.event} message: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`)
    const m: { readonly event: string } = decoded.right
    if (Schema.is(Start)(m)) {
      const f = formatOf(dialect, m.start.mediaFormat.encoding, m.start.mediaFormat.sampleRate)
      if (f === undefined) return fail(`unsupported encoding ${m.start.mediaFormat.encoding}`)
      streamId = m.start.streamId
      format = f
      return Effect.succeed([{
        _tag: "Start",
        streamId: m.start.streamId,
        providerCallId: m.start.callId,
        format: f,
        parameters: decodeParameters(m.extra_headers ?? undefined)
      }])
    }
    if (Schema.is(Media)(m)) {
      if (format === undefined) return fail("audio before the start message")
      if (m.media.track !== undefined && m.media.track !== "inbound") return Effect.succeed([])
      return Effect.succeed([{ _tag: "Audio", audio: { format, data: new Uint8Array(Buffer.from(m.media.payload, "base64")) } }])
    }
    if (Schema.is(Dtmf)(m)) return Effect.succeed([{ _tag: "Dtmf", digit: m.dtmf.digit }])
    if (Schema.is(Played)(m)) {
      pending = pending.filter((name) => name !== m.name)
      return Effect.succeed([{ _tag: "Mark", name: m.name }])
    }
    if (m.event === "clearedAudio") {
      const dropped = cleared
      cleared = []
      return Effect.succeed(dropped.map((name): MediaEvent => ({ _tag: "Mark", name })))
    }
    if (m.event === "stop") return Effect.succeed([{ _tag: "Stop" }])
    // Anything newer is ignored rather than failing the call.
    return Effect.succeed([])
  }

  const encodeNow = (command: MediaCommand): Effect.Effect<ReadonlyArray<WebSocketFrame>, TelephonyError> => {
    if (command._tag === "Stop") return Effect.succeed([])
    if (streamId === undefined || format === undefined) return fail("nothing can be sent before the stream started")
    switch (command._tag) {
      case "Audio": {
        const given = command.audio.format
        const l16 = (e: string) => e === "l16le" || e === "l16be"
        const fits = given.sampleRate === format.sampleRate &&
          (given.encoding === format.encoding || (l16(given.encoding) && l16(format.encoding)))
        if (!fits) {
          return fail(`the stream takes ${format.encoding} at ${format.sampleRate} Hz, not ${given.encoding} at ${given.sampleRate} Hz`)
        }
        // Plivo-compatible carriers play L16 little-endian.
        const data = given.encoding === "l16be" ? swapBytes(command.audio.data) : command.audio.data
        return Effect.succeed([text({
          event: "playAudio",
          ...(dialect.streamIdInPlayAudio ? { streamId } : {}),
          media: { contentType: contentTypeOf(given), sampleRate: given.sampleRate, payload: Buffer.from(data).toString("base64") }
        })])
      }
      case "Mark":
        pending = [...pending, command.name]
        return Effect.succeed([text({ event: "checkpoint", streamId, name: command.name })])
      case "Clear":
        cleared = [...cleared, ...pending]
        pending = []
        return Effect.succeed([text({ event: "clearAudio", streamId })])
    }
  }

  return { decode, encode }
}

export const media = (dialect: PlivoDialect): ProviderMedia => ({ open: Effect.sync(() => session(dialect)) })
