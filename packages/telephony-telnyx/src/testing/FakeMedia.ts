/**
 * The fake's side of a Telnyx media stream: a WebSocket client that connects to the `stream_url` as
 * Telnyx does when a call with a stream is placed or answered, sends `connected` at once and `start`
 * (call ids, `client_state`, the media format) when the call is answered, then the caller's audio as
 * 20 ms `media` frames of the `inbound` track, `dtmf` and finally `stop`. It plays what it is sent in
 * real time (scaled), as bidirectional RTP mode does: `media` payloads are queued, a `mark` comes back
 * once the audio queued before it has played (at once when nothing is queued), `clear` drops the
 * unplayed audio and sends the marks it dropped back. With `both_tracks`, what it plays is streamed
 * back as the `outbound` track. A frame it cannot read gets an `error` frame, as Telnyx answers.
 */
import * as FakeJson from "@agentline/telephony-kit/testing/FakeJson"
import * as FakeMediaLeg from "@agentline/telephony-kit/testing/FakeMediaLeg"
import * as Crypto from "node:crypto"

export interface MediaFormat {
  readonly encoding: "PCMU" | "PCMA" | "L16"
  readonly sampleRate: number
}

export type MediaLeg = FakeMediaLeg.MediaLeg & {
  readonly streamId: string
  /** The stream's format, in Telnyx's words. */
  readonly telnyxFormat: MediaFormat
  /** Frames Telnyx could not read (it answered each with an `error` frame). */
  readonly errors: () => number
  /** The call is answered: `start` goes out, then media may flow. */
  readonly start: () => void
  /** The caller speaks: `audio` goes to the server as 20 ms media frames of the inbound track. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  /** The call ended on Telnyx's side: `stop`, then the socket closes. */
  readonly stop: () => void
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

const ENCODINGS = { PCMU: "mulaw", PCMA: "alaw", L16: "l16le" } as const

export const connect = (input: {
  readonly url: string
  readonly callControlId: string
  readonly callSessionId: string
  readonly from: string
  readonly to: string
  readonly clientState: string | undefined
  readonly format: MediaFormat
  readonly bothTracks: boolean
  /** Real milliseconds per 20 ms media frame. */
  readonly frameMillis: number
}): Promise<MediaLeg> => {
  const streamId = Crypto.randomUUID()
  const frameBytes = (input.format.sampleRate / 50) * (input.format.encoding === "L16" ? 2 : 1)
  let errors = 0
  let sequence = 0
  let chunk = 0
  let outboundChunk = 0
  let started = false
  const send = (socket: FakeMediaLeg.LegSocket, message: Record<string, unknown>) =>
    socket.sendJson({ ...message, sequence_number: String(++sequence) })
  const sendBack = (socket: FakeMediaLeg.LegSocket, name: string) => {
    socket.reportMark(name)
    send(socket, { event: "mark", stream_id: streamId, mark: { name } })
  }
  const refuse = (socket: FakeMediaLeg.LegSocket, detail: string) => {
    errors++
    send(socket, { event: "error", stream_id: streamId, payload: { code: 100002, title: "Unknown error", detail } })
  }
  return FakeMediaLeg.connect({
    url: input.url,
    format: { encoding: ENCODINGS[input.format.encoding], sampleRate: input.format.sampleRate },
    frameBytes,
    frameMillis: input.frameMillis,
    protocol: {
      binary: (_data, socket) => refuse(socket, "binary frames are not supported: send JSON text frames"),
      text: (text, socket) => {
        const message = FakeJson.parse(text)
        if (message === undefined) return refuse(socket, "the frame is not JSON")
        switch (FakeJson.text(message, "event")) {
          case "media": {
            const payload = FakeJson.text(message, "media", "payload")
            if (payload === undefined || !BASE64.test(payload)) return refuse(socket, "media.payload must be base64")
            if (!started) return refuse(socket, "media before the stream started")
            return socket.playout.audio(new Uint8Array(Buffer.from(payload, "base64")))
          }
          case "mark": {
            const name = FakeJson.text(message, "mark", "name")
            if (name === undefined) return refuse(socket, "mark.name is required")
            // Nothing queued: the mark is reached at once.
            return socket.playout.isEmpty() ? sendBack(socket, name) : socket.playout.mark(name)
          }
          case "clear":
            // The marks a clear dropped come back.
            for (const name of socket.playout.clear()) sendBack(socket, name)
            return
          default:
            refuse(socket, `unknown event ${String(FakeJson.at(message, "event"))}`)
        }
      },
      reached: (name, socket) => sendBack(socket, name),
      // With both tracks, what plays goes back as the outbound track.
      played: (take, socket) => {
        if (!input.bothTracks) return
        outboundChunk++
        send(socket, {
          event: "media",
          stream_id: streamId,
          media: { track: "outbound", chunk: String(outboundChunk), timestamp: String(outboundChunk * 20), payload: Buffer.from(take).toString("base64") }
        })
      },
      opened: (socket) => {
        socket.sendJson({ event: "connected", version: "1.0.0" })
        return {
          streamId,
          telnyxFormat: input.format,
          errors: () => errors,
          start: () => {
            if (started) return
            started = true
            send(socket, {
              event: "start",
              stream_id: streamId,
              start: {
                user_id: "00000000-0000-4000-8000-0000000fa4e0",
                call_control_id: input.callControlId,
                call_session_id: input.callSessionId,
                from: input.from,
                to: input.to,
                tags: [],
                client_state: input.clientState ?? null,
                media_format: { encoding: input.format.encoding, sample_rate: input.format.sampleRate, channels: 1 }
              }
            })
          },
          speak: (audio: Uint8Array) => {
            if (!started) return
            for (const payload of FakeMediaLeg.pieces(audio, frameBytes)) {
              chunk++
              send(socket, {
                event: "media",
                stream_id: streamId,
                media: { track: "inbound", chunk: String(chunk), timestamp: String(chunk * 20), payload: Buffer.from(payload).toString("base64") }
              })
            }
          },
          press: (digit: string) => send(socket, { event: "dtmf", stream_id: streamId, occurred_at: new Date().toISOString(), dtmf: { digit } }),
          stop: () => {
            if (started) send(socket, { event: "stop", stream_id: streamId, stop: { user_id: "00000000-0000-4000-8000-0000000fa4e0", call_control_id: input.callControlId } })
            socket.close(1000)
          }
        }
      }
    }
  })
}
