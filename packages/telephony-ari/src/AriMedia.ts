/**
 * The chan_websocket media protocol (Asterisk 20.16 / 21.11 / 22.6 / 23+), as the externalMedia
 * channel speaks it once it has dialed our media route: BINARY frames are raw audio in the channel's
 * format (no header), TEXT frames are control. Asterisk sends `MEDIA_START connection_id:<id>
 * channel:<name> channel_id:<id> format:ulaw optimal_frame_size:160 ptime:20`, `DTMF_END digit:5`,
 * `MEDIA_MARK_PROCESSED ...`, `MEDIA_XOFF` / `MEDIA_XON` (its queue is nearly full / drained) and other
 * notices; with the `f(json)` dial option the same as JSON (`{"event": "MEDIA_START", ...}`), which is
 * read too. We send `MARK_MEDIA <name>` (a mark in the playback queue), `FLUSH_MEDIA` (drop what is
 * queued: barge-in) and `HANGUP`, as plain text, which is the default control format.
 *
 * The stream's format comes from `MEDIA_START` (we ask for `ulaw`; `alaw` and `slin*` are read too);
 * audio in another format is refused, never re-labelled.
 */
import type { AudioFormat, MediaEvent, MediaSession, ProviderMedia, WebSocketFrame } from "@agentline/core/telephony/Media"
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
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

/** A mark name goes as one bare word; anything else in it would be read as more arguments. */
const markName = (name: string) => name.replace(/[\s:]+/g, "_")

export const open: Effect.Effect<MediaSession> = Effect.sync(() => {
  let format: AudioFormat | undefined
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
        case "MEDIA_MARK_PROCESSED":
          return Effect.succeed(control.params.correlation_id === undefined ? [] : [{ _tag: "Mark", name: control.params.correlation_id }])
        default:
          // MEDIA_XOFF / MEDIA_XON, STATUS, QUEUE_DRAINED, MEDIA_BUFFERING_COMPLETED, ERROR: notices.
          return Effect.succeed([])
      }
    })
  const encode: MediaSession["encode"] = (command) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<WebSocketFrame>, TelephonyError> => {
      switch (command._tag) {
        case "Audio":
          if (format === undefined) return Effect.fail(fail("audio before the stream started"))
          if (!sameFormat(command.audio.format, format)) {
            return Effect.fail(fail(`audio in ${command.audio.format.encoding}/${command.audio.format.sampleRate} on a ${format.encoding}/${format.sampleRate} stream`))
          }
          return Effect.succeed([{ _tag: "Binary", data: command.audio.data }])
        case "Mark":
          return Effect.succeed([{ _tag: "Text", text: `MARK_MEDIA ${markName(command.name)}` }])
        case "Clear":
          return Effect.succeed([{ _tag: "Text", text: "FLUSH_MEDIA" }])
        case "Stop":
          return Effect.succeed([{ _tag: "Text", text: "HANGUP" }])
      }
    })
  return { decode, encode }
})

export const media: ProviderMedia = { subprotocol: SUBPROTOCOL, open }
