/**
 * The codec of Vonage's media WebSocket (the `connect` action's `websocket` endpoint). Vonage dials our
 * URL and speaks:
 *
 *   from Vonage  text   {"event":"websocket:connected","content-type":"audio/l16;rate=16000", ...the endpoint's headers}
 *                binary 16-bit signed little-endian PCM, mono, 20 ms a frame (640 bytes at 16 kHz)
 *                text   {"event":"websocket:dtmf","digit":"5","duration":260}
 *                text   {"event":"websocket:notify","payload":{...}}   (a `notify` we sent has been reached)
 *                text   {"event":"websocket:cleared"}                  (a `clear` we sent emptied the buffer)
 *   to Vonage    binary the same PCM (Vonage buffers up to 3072 frames, about a minute), whole 20 ms frames (a remainder waits for more audio, or is
 *                       padded with silence before a mark), played in order in real time
 *                text   {"action":"notify","payload":{...}}  /  {"action":"clear"}
 *
 * Marks are Vonage's documented `notify` action: Vonage answers `websocket:notify` with our payload
 * once the audio queued before it has been played, which is the port's `Mark`. What Vonage documents
 * less clearly is the fate of notifications queued behind audio that a `clear` drops; the port wants
 * every mark reported, played or dropped, so this session remembers the marks in flight and, on
 * `websocket:cleared`, reports those still pending at once (a `websocket:notify` for one of them that
 * arrives afterwards is not reported twice).
 *
 * The stream's rate comes from the `content-type` Vonage confirms (this adapter asks for 16 kHz; 8 and
 * 24 kHz parse too): nothing here assumes 8 kHz. Vonage sends no stop message: the socket closing is
 * the end of the stream. A call's uuid is not in the stream; the answer document passes what the
 * server needs as the endpoint's headers, which come back in `websocket:connected`.
 */
import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import type { MediaCommand, MediaEvent, MediaSession, ProviderMedia, WebSocketFrame } from "@agentline/core/telephony/Media"
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import * as Crypto from "node:crypto"
import { Effect } from "effect"

const failure = (message: string) => new TelephonyError({ provider: "vonage", message: `vonage media: ${message}`, retryable: false })

/** The audio format of an L16 content type (`audio/l16;rate=16000`), if it is one. */
export const formatOf = (contentType: string): AudioFormat | undefined => {
  const match = /^\s*audio\/l16\s*;\s*rate\s*=\s*(\d+)\s*$/i.exec(contentType)
  if (match === null) return undefined
  const sampleRate = Number(match[1])
  return sampleRate >= 8000 && sampleRate <= 48_000 ? { encoding: "l16le", sampleRate } : undefined
}

/** Bytes of one 20 ms frame at `format`. */
export const frameBytes = (format: AudioFormat) => (format.sampleRate / 50) * 2

const text = (message: unknown): WebSocketFrame => ({ _tag: "Text", text: JSON.stringify(message) })

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** A codec for one connection. */
export const session = (): MediaSession => {
  let format: AudioFormat | undefined
  const streamId = Crypto.randomUUID()
  /** Marks sent and not yet reported, in order. */
  const pending: Array<string> = []
  /** Audio of a frame not sent yet (less than 20 ms). */
  let partial = new Uint8Array(0)

  const reached = (name: string): ReadonlyArray<MediaEvent> => {
    const at = pending.indexOf(name)
    if (at < 0) return []
    pending.splice(at, 1)
    return [{ _tag: "Mark", name }]
  }

  const decode = (frame: WebSocketFrame) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<MediaEvent>, TelephonyError> => {
      if (frame._tag === "Binary") {
        if (format === undefined) return Effect.fail(failure("audio before websocket:connected"))
        return Effect.succeed([{ _tag: "Audio", audio: { format, data: frame.data } }])
      }
      let message: unknown
      try {
        message = JSON.parse(frame.text)
      } catch {
        return Effect.fail(failure("a text frame that is not JSON"))
      }
      if (!isRecord(message)) return Effect.fail(failure("a text frame that is not a JSON object"))
      switch (message.event) {
        case "websocket:connected": {
          const contentType = typeof message["content-type"] === "string" ? message["content-type"] : ""
          const found = formatOf(contentType)
          if (found === undefined) return Effect.fail(failure(`unsupported content-type ${JSON.stringify(contentType)}`))
          format = found
          const parameters: Record<string, string> = {}
          for (const [key, value] of Object.entries(message)) {
            if (key !== "event" && key !== "content-type" && typeof value === "string") parameters[key] = value
          }
          const uuid = typeof message.uuid === "string" ? message.uuid : undefined
          return Effect.succeed([{ _tag: "Start", streamId, providerCallId: uuid, format, parameters }])
        }
        case "websocket:dtmf": {
          // `{"digit": "5"}` as documented; the `dtmf` object of Vonage's input events is read too.
          const dtmf = isRecord(message.dtmf) ? message.dtmf : {}
          const digit = [message.digit, dtmf.digit, dtmf.digits].find((d): d is string => typeof d === "string") ?? ""
          return Effect.succeed([...digit].filter((d) => /^[0-9A-D*#]$/.test(d)).map((d): MediaEvent => ({ _tag: "Dtmf", digit: d })))
        }
        case "websocket:notify": {
          const payload = isRecord(message.payload) ? message.payload : {}
          return Effect.succeed(typeof payload.name === "string" ? reached(payload.name) : [])
        }
        case "websocket:cleared":
          return Effect.succeed(pending.splice(0, pending.length).map((name): MediaEvent => ({ _tag: "Mark", name })))
        default:
          return Effect.succeed([])
      }
    })

  const encode = (command: MediaCommand) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<WebSocketFrame>, TelephonyError> => {
      switch (command._tag) {
        case "Audio": {
          if (format === undefined) return Effect.fail(failure("no audio can be sent before websocket:connected"))
          const given = command.audio.format
          if (given.encoding !== format.encoding || given.sampleRate !== format.sampleRate) {
            return Effect.fail(failure(`the stream takes ${format.encoding} at ${format.sampleRate} Hz, not ${given.encoding} at ${given.sampleRate} Hz`))
          }
          // Vonage plays whole 20 ms frames: audio is sent in whole frames, and what is left of one waits
          // for the next audio (a resampled frame may come a sample short or long), or is padded with
          // silence by a mark (what was played before a mark must reach Vonage before the notify).
          const size = frameBytes(format)
          const data = partial.length === 0 ? command.audio.data : concat(partial, command.audio.data)
          const frames: Array<WebSocketFrame> = []
          let offset = 0
          for (; offset + size <= data.length; offset += size) frames.push({ _tag: "Binary", data: data.slice(offset, offset + size) })
          partial = data.slice(offset)
          return Effect.succeed(frames)
        }
        case "Mark": {
          const flushed = flush()
          pending.push(command.name)
          return Effect.succeed([...flushed, text({ action: "notify", payload: { name: command.name } })])
        }
        case "Clear":
          partial = new Uint8Array(0)
          return Effect.succeed([text({ action: "clear" })])
        case "Stop":
          // The call is hung up through the Voice API; Vonage then closes the socket.
          partial = new Uint8Array(0)
          return Effect.succeed([])
      }
    })

  /** The part of a frame not sent yet, padded with silence to a whole frame. */
  const flush = (): ReadonlyArray<WebSocketFrame> => {
    if (partial.length === 0 || format === undefined) return []
    const frame = new Uint8Array(frameBytes(format))
    frame.set(partial)
    partial = new Uint8Array(0)
    return [{ _tag: "Binary", data: frame }]
  }

  return { decode, encode }
}

export const media: ProviderMedia = { open: Effect.sync(session) }
