/**
 * The codec of Exotel's Voicebot applet / Connect Voice AI WebSocket ("AgentStream", JSON text only):
 *
 *   from Exotel  {"event":"connected"}
 *                {"event":"start","sequence_number","stream_sid","start":{"stream_sid","call_sid","account_sid",
 *                  "from","to","custom_parameters":{...},"media_format":{"encoding","sample_rate","bit_rate"}}}
 *                {"event":"media","sequence_number","stream_sid","media":{"chunk","timestamp","payload":"<base64>"}}
 *                {"event":"dtmf","stream_sid","dtmf":{"digit","duration"}}
 *                {"event":"mark","stream_sid","mark":{"name"}}     (audio sent before the mark has played)
 *                {"event":"stop","stream_sid","stop":{"call_sid","account_sid","reason"}}
 *   to Exotel    {"event":"media","stream_sid","media":{"payload":"<base64>"}}
 *                {"event":"mark","stream_sid","mark":{"name"}}  {"event":"clear","stream_sid"}
 *
 * Audio is raw 16-bit mono PCM, little-endian ("raw/slin"), at 8 kHz unless the stream URL asked for
 * 16 or 24 kHz (`?sample-rate=`): the rate is read from `start` (`media_format.sample_rate`), never
 * assumed. Accounts switched to µ-law by Exotel's (beta) media format option say so in
 * `media_format.encoding`, and are read as such.
 *
 * Exotel wants the audio it plays in chunks of whole 20 ms frames (multiples of 320 bytes at 8 kHz) of
 * at least 100 ms; smaller or ragged chunks play with gaps. The server hands the codec 20 ms frames, so
 * the codec gathers them into 100 ms chunks, and sends what it holds, padded with silence to a whole
 * frame, before a mark (the mark must follow its audio) — a clear drops it. Exotel has no frame to end
 * a stream: closing the socket does, so `Stop` encodes to nothing.
 */
import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import type { MediaCommand, MediaEvent, MediaSession, ProviderMedia, WebSocketFrame } from "@agentline/core/telephony/Media"
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { Effect } from "effect"

const fault = (message: string) => new TelephonyError({ provider: "exotel", message: `exotel media: ${message}`, retryable: false })

/** The format `start` announces: L16 little-endian unless it names µ-law or A-law; 8 kHz unless it names a rate. */
export const formatOf = (mediaFormat: unknown): AudioFormat => {
  const record = typeof mediaFormat === "object" && mediaFormat !== null ? mediaFormat as Record<string, unknown> : {}
  const encoding = String(record.encoding ?? "").toLowerCase()
  const rate = Number(record.sample_rate ?? record.sampleRate ?? 8000)
  return {
    encoding: /mulaw|ulaw|pcmu/.test(encoding) ? "mulaw" : /alaw|pcma/.test(encoding) ? "alaw" : "l16le",
    sampleRate: Number.isInteger(rate) && rate >= 4000 && rate <= 48_000 ? rate : 8000
  }
}

const bytesPerSample = (format: AudioFormat) => (format.encoding === "l16le" || format.encoding === "l16be" ? 2 : 1)

/** Bytes of one 20 ms frame (320 at 8 kHz L16). */
export const frameBytes = (format: AudioFormat) => Math.round(format.sampleRate / 50) * bytesPerSample(format)

/** The smallest chunk sent while audio keeps coming: 100 ms. */
export const chunkBytes = (format: AudioFormat) => frameBytes(format) * 5

/** Exotel's largest chunk (100 KB), in whole frames. */
const maxChunkBytes = (format: AudioFormat) => Math.floor(100_000 / frameBytes(format)) * frameBytes(format)

const silenceByte = (format: AudioFormat) => (format.encoding === "mulaw" ? 0xff : format.encoding === "alaw" ? 0xd5 : 0)

const text = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })

const parameters = (value: unknown): Record<string, string> => {
  const out: Record<string, string> = {}
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) if (typeof v === "string" || typeof v === "number") out[k] = String(v)
  }
  return out
}

const sameFormat = (a: AudioFormat, b: AudioFormat) => a.encoding === b.encoding && a.sampleRate === b.sampleRate

/** A codec for one media connection: it learns the stream and its format from `start`. */
export const session = (): MediaSession => {
  let streamSid: string | undefined
  let format: AudioFormat | undefined
  let pending = new Uint8Array(0)

  const chunk = (data: Uint8Array): WebSocketFrame =>
    text({ event: "media", stream_sid: streamSid, media: { payload: Buffer.from(data).toString("base64") } })

  /** Whole chunks of what is pending (all of it, padded to a whole frame, when `flush`). */
  const take = (flush: boolean): Array<WebSocketFrame> => {
    if (format === undefined || pending.length === 0) return []
    const frame = frameBytes(format)
    if (!flush && pending.length < chunkBytes(format)) return []
    let ready = pending
    if (flush && ready.length % frame !== 0) {
      const padded = new Uint8Array(Math.ceil(ready.length / frame) * frame).fill(silenceByte(format))
      padded.set(ready)
      ready = padded
    }
    const usable = flush ? ready.length : Math.floor(ready.length / frame) * frame
    const frames: Array<WebSocketFrame> = []
    for (let offset = 0; offset < usable; offset += maxChunkBytes(format)) {
      frames.push(chunk(ready.subarray(offset, Math.min(usable, offset + maxChunkBytes(format)))))
    }
    pending = ready.slice(usable)
    return frames
  }

  const decode = (frame: WebSocketFrame) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<MediaEvent>, TelephonyError> => {
      if (frame._tag === "Binary") return Effect.fail(fault("Exotel sends text frames only, not binary"))
      let message: any
      try {
        message = JSON.parse(frame.text)
      } catch {
        return Effect.fail(fault("a frame that is not JSON"))
      }
      if (typeof message !== "object" || message === null) return Effect.fail(fault("a frame that is not an object"))
      switch (message.event) {
        case "start": {
          const start = typeof message.start === "object" && message.start !== null ? message.start : {}
          const sid = String(message.stream_sid ?? start.stream_sid ?? message.streamSid ?? start.streamSid ?? "")
          if (sid === "") return Effect.fail(fault("start without a stream_sid"))
          streamSid = sid
          format = formatOf(start.media_format ?? start.mediaFormat)
          const callSid = start.call_sid ?? start.callSid
          return Effect.succeed([{
            _tag: "Start",
            streamId: sid,
            providerCallId: typeof callSid === "string" && callSid !== "" ? callSid : undefined,
            format,
            parameters: parameters(start.custom_parameters ?? start.customParameters)
          }])
        }
        case "media": {
          const payload = message.media?.payload
          if (typeof payload !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) return Effect.fail(fault("media without a base64 payload"))
          if (format === undefined) return Effect.fail(fault("media before start"))
          return Effect.succeed([{ _tag: "Audio", audio: { format, data: new Uint8Array(Buffer.from(payload, "base64")) } }])
        }
        case "dtmf": {
          const digit = String(message.dtmf?.digit ?? "")
          return Effect.succeed(/^[0-9A-D*#]$/.test(digit) ? [{ _tag: "Dtmf", digit }] : [])
        }
        case "mark":
          return typeof message.mark?.name === "string" ? Effect.succeed([{ _tag: "Mark", name: message.mark.name }]) : Effect.succeed([])
        case "stop":
          return Effect.succeed([{ _tag: "Stop" }])
        default:
          // `connected`, and frames Exotel added after this adapter was written.
          return Effect.succeed([])
      }
    })

  const encode = (command: MediaCommand) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<WebSocketFrame>, TelephonyError> => {
      if (streamSid === undefined || format === undefined) return Effect.fail(fault("nothing can be sent before the stream's start"))
      switch (command._tag) {
        case "Audio": {
          if (!sameFormat(command.audio.format, format)) {
            return Effect.fail(
              fault(
                `audio in ${command.audio.format.encoding}/${command.audio.format.sampleRate} on a ${format.encoding}/${format.sampleRate} stream`
              )
            )
          }
          const joined = new Uint8Array(pending.length + command.audio.data.length)
          joined.set(pending)
          joined.set(command.audio.data, pending.length)
          pending = joined
          return Effect.succeed(take(false))
        }
        case "Mark":
          return Effect.succeed([...take(true), text({ event: "mark", stream_sid: streamSid, mark: { name: command.name } })])
        case "Clear":
          pending = new Uint8Array(0)
          return Effect.succeed([text({ event: "clear", stream_sid: streamSid })])
        case "Stop":
          return Effect.succeed([])
      }
    })

  return { decode, encode }
}

export const media: ProviderMedia = { open: Effect.sync(session) }
