/**
 * The chan_websocket media protocol (Asterisk 20.16 / 21.11 / 22.6 / 23+), as the externalMedia
 * channel speaks it once it has dialed our media route: BINARY frames are raw audio in the channel's
 * format (no header), TEXT frames are control. Asterisk sends `MEDIA_START connection_id:<id>
 * channel:<name> channel_id:<id> format:ulaw optimal_frame_size:160 ptime:20`, `DTMF_END digit:5
 * channel_id:<id>`, `MEDIA_MARK_PROCESSED <id>`, `QUEUE_DRAINED`, `MEDIA_XOFF` / `MEDIA_XON` (its queue
 * is nearly full / drained) and other notices; or, when chan_websocket.conf or the `f(json)` dial
 * option says so, the same as JSON (`{"event": "MEDIA_START", ...}`). The codec answers in the format
 * the stream started in: `MARK_MEDIA <id>` (a mark in the playback queue, newer builds), `FLUSH_MEDIA`
 * (drop what is queued: barge-in), `REPORT_QUEUE_DRAINED`, `HANGUP`, or `{"command": ...}`.
 *
 * `FLUSH_MEDIA` drops the marks queued behind the audio too, without a word (chan_websocket frees the
 * whole frame queue), while the voice runtime expects every mark back once its audio is played or
 * dropped. So a clear is `FLUSH_MEDIA` then `REPORT_QUEUE_DRAINED`, and the `QUEUE_DRAINED` that
 * follows reports the marks the flush dropped as reached.
 *
 * The stream's format comes from `MEDIA_START` (we ask for `ulaw`; `alaw` and `slin*` are read too);
 * audio in another format is refused, never re-labelled.
 *
 * Without `START_MEDIA_BUFFERING`, chan_websocket queues only whole frames of `optimal_frame_size` bytes
 * (20 ms) of each binary message and drops the rest: a reply that ends in a part of a frame would lose
 * it. So the agent's audio goes in whole frames; the part of a frame left is held for the next audio, and
 * padded with silence to a whole frame before a mark or a hang-up (what was played before a mark must
 * reach Asterisk before the mark). A clear drops it with the rest.
 */
import type { AudioFormat } from "@agentline/telephony-kit/AudioFormat"
import type { MediaEvent, MediaSession, ProviderMedia, WebSocketFrame } from "@agentline/telephony-kit/Media"
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect } from "effect"

/** The subprotocol websocket_client.conf names for chan_websocket (`protocols = media`). */
export const SUBPROTOCOL = "media"

/** An Asterisk format name as an audio format; `undefined` for one we cannot carry (opus, g722...). */
export const formatOf = (name: string): AudioFormat | undefined => {
  switch (name.toLowerCase()) {
    case "ulaw":
      return { encoding: "mulaw", sampleRate: 8000 }
    case "alaw":
      return { encoding: "alaw", sampleRate: 8000 }
    case "slin":
      return { encoding: "l16le", sampleRate: 8000 }
    default: {
      // slin12, slin16, slin24 ... slin192: signed linear in host byte order (little-endian).
      const match = /^slin(\d+)$/.exec(name.toLowerCase())
      return match === null ? undefined : { encoding: "l16le", sampleRate: Number(match[1]) * 1000 }
    }
  }
}

/** A control message as its name and `key:value` parameters (plain text or JSON); `undefined` if neither. */
export const parseControl = (text: string): { readonly name: string; readonly params: Readonly<Record<string, string>> } | undefined => {
  const trimmed = text.trim()
  if (trimmed.startsWith("{")) {
    try {
      const json = JSON.parse(trimmed) as Record<string, unknown>
      const name = typeof json.event === "string" ? json.event : typeof json.command === "string" ? json.command : undefined
      if (name === undefined) return undefined
      const params: Record<string, string> = {}
      for (const [k, v] of Object.entries(json)) if (typeof v === "string" || typeof v === "number") params[k] = String(v)
      return { name, params }
    } catch {
      return undefined
    }
  }
  const [name, ...rest] = trimmed.split(/\s+/)
  if (name === undefined || name === "") return undefined
  const params: Record<string, string> = {}
  const bare: Array<string> = []
  for (const part of rest) {
    const colon = part.indexOf(":")
    if (colon > 0) params[part.slice(0, colon)] = part.slice(colon + 1)
    else bare.push(part)
  }
  // A bare argument (`MEDIA_MARK_PROCESSED mark-1`) is the correlation id.
  if (bare.length > 0 && params.correlation_id === undefined) params.correlation_id = bare.join(" ")
  return { name, params }
}

const fail = (message: string) => new TelephonyError({ provider: "ari", message, retryable: false })

const sameFormat = (a: AudioFormat, b: AudioFormat) => a.encoding === b.encoding && a.sampleRate === b.sampleRate

/** 20 ms of `format` in bytes: the frame chan_websocket plays when `MEDIA_START` names none. */
const twentyMillis = (format: AudioFormat) => (format.sampleRate / 50) * (format.encoding === "l16le" ? 2 : 1)

/** The byte of silence of an encoding (µ-law and A-law silence is not zero). */
const silenceByte = (format: AudioFormat) => (format.encoding === "mulaw" ? 0xff : format.encoding === "alaw" ? 0xd5 : 0)

/** A mark name goes as one bare word; anything else in it would be read as more arguments. */
const markName = (name: string) => name.replace(/[\s:]+/g, "_")

export const open: Effect.Effect<MediaSession> = Effect.sync(() => {
  let format: AudioFormat | undefined
  /** Bytes of one frame of the stream, and the agent's audio not sent yet for want of a whole frame. */
  let frameBytes = 160
  let partial = new Uint8Array(0)
  /** The stream started in JSON control format: commands go as JSON too. */
  let json = false
  /** Marks sent and not reported yet; those a flush dropped, reported by the next QUEUE_DRAINED. */
  const pending = new Map<string, string>()
  let flushed: Array<string> = []
  const command = (name: string, correlationId?: string): WebSocketFrame => ({
    _tag: "Text",
    text: json
      ? JSON.stringify(correlationId === undefined ? { command: name } : { command: name, correlation_id: correlationId })
      : correlationId === undefined
      ? name
      : `${name} ${correlationId}`
  })
  const decode = (frame: WebSocketFrame): Effect.Effect<ReadonlyArray<MediaEvent>, TelephonyError> =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<MediaEvent>, TelephonyError> => {
      if (frame._tag === "Binary") {
        // Audio before MEDIA_START has no known format: dropped, as there is no stream yet.
        return Effect.succeed(format === undefined ? [] : [{ _tag: "Audio", audio: { format, data: frame.data } }])
      }
      const control = parseControl(frame.text)
      if (control === undefined) return Effect.succeed([])
      switch (control.name) {
        case "MEDIA_START": {
          const named = formatOf(control.params.format ?? "")
          if (named === undefined) return Effect.fail(fail(`chan_websocket streams ${control.params.format ?? "no format"}, which this server cannot carry: ask for ulaw`))
          format = named
          const optimal = Number(control.params.optimal_frame_size)
          frameBytes = Number.isInteger(optimal) && optimal > 0 ? optimal : twentyMillis(named)
          json = frame.text.trim().startsWith("{")
          return Effect.succeed([{
            _tag: "Start",
            streamId: control.params.connection_id ?? control.params.channel_id ?? "",
            // The externalMedia channel is not the call: the attempt's own channel id is used instead.
            providerCallId: undefined,
            format: named,
            parameters: {}
          }])
        }
        case "DTMF_END":
          return Effect.succeed(control.params.digit === undefined ? [] : [{ _tag: "Dtmf", digit: control.params.digit }])
        case "MEDIA_MARK_PROCESSED": {
          const id = control.params.correlation_id
          if (id === undefined || id === "") return Effect.succeed([])
          const name = pending.get(id) ?? id
          pending.delete(id)
          return Effect.succeed([{ _tag: "Mark", name }])
        }
        case "QUEUE_DRAINED": {
          const dropped = flushed
          flushed = []
          return Effect.succeed(dropped.map((name): MediaEvent => ({ _tag: "Mark", name })))
        }
        default:
          // MEDIA_XOFF / MEDIA_XON, STATUS, MEDIA_BUFFERING_COMPLETED, ERROR: notices.
          return Effect.succeed([])
      }
    })
  /** The whole frames of what is held and `data`, as one message; the part of a frame left is held. */
  const wholeFrames = (data: Uint8Array): ReadonlyArray<WebSocketFrame> => {
    const all = partial.length === 0 ? data : Buffer.concat([partial, data])
    const whole = all.length - (all.length % frameBytes)
    partial = all.slice(whole)
    return whole === 0 ? [] : [{ _tag: "Binary", data: all.subarray(0, whole) }]
  }
  /** What is held, padded with silence to a whole frame (nothing when nothing is held). */
  const rest = (): ReadonlyArray<WebSocketFrame> => {
    if (partial.length === 0 || format === undefined) return []
    const padded = new Uint8Array(frameBytes).fill(silenceByte(format))
    padded.set(partial)
    partial = new Uint8Array(0)
    return [{ _tag: "Binary", data: padded }]
  }
  const encode: MediaSession["encode"] = (input) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<WebSocketFrame>, TelephonyError> => {
      switch (input._tag) {
        case "Audio":
          if (format === undefined) return Effect.fail(fail("audio before the stream started"))
          if (!sameFormat(input.audio.format, format)) {
            return Effect.fail(fail(`audio in ${input.audio.format.encoding}/${input.audio.format.sampleRate} on a ${format.encoding}/${format.sampleRate} stream`))
          }
          return Effect.succeed(wholeFrames(input.audio.data))
        case "Mark": {
          // Plain text carries the id as the rest of the line: one word, mapped back when it returns.
          const id = json ? input.name : markName(input.name)
          pending.set(id, input.name)
          return Effect.succeed([...rest(), command("MARK_MEDIA", id)])
        }
        case "Clear":
          flushed = [...flushed, ...pending.values()]
          pending.clear()
          partial = new Uint8Array(0)
          return Effect.succeed([command("FLUSH_MEDIA"), command("REPORT_QUEUE_DRAINED")])
        case "Stop":
          return Effect.succeed([...rest(), command("HANGUP")])
      }
    })
  return { decode, encode }
})

export const media: ProviderMedia = { subprotocol: SUBPROTOCOL, open }
