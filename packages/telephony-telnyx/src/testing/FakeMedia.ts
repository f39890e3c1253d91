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
import * as FakePlayout from "@agentline/telephony-kit/testing/FakePlayout"
import * as Crypto from "node:crypto"
import WebSocket from "ws"

export interface MediaFormat {
  readonly encoding: "PCMU" | "PCMA" | "L16"
  readonly sampleRate: number
}

export interface MediaLeg {
  readonly streamId: string
  /** The URL the stream connected to (the server's, with its token). */
  readonly url: string
  readonly format: MediaFormat
  /** Everything the server sent as audio, played or not. */
  readonly received: () => Uint8Array
  /** The audio the caller heard: `received` less what a `clear` dropped. */
  readonly played: () => Uint8Array
  /** Marks sent back to the server, in order. */
  readonly marks: () => ReadonlyArray<string>
  readonly clears: () => number
  /** Frames Telnyx could not read (it answered each with an `error` frame). */
  readonly errors: () => number
  /** The call is answered: `start` goes out, then media may flow. */
  readonly start: () => void
  /** The caller speaks: `audio` goes to the server as 20 ms media frames of the inbound track. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  /** The call ended on Telnyx's side: `stop`, then the socket closes. */
  readonly stop: () => void
  /** Resolves when the socket has closed, whoever closed it. */
  readonly closed: Promise<void>
  readonly isOpen: () => boolean
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

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
}): Promise<MediaLeg> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(input.url)
    const streamId = Crypto.randomUUID()
    const frameBytes = (input.format.sampleRate / 50) * (input.format.encoding === "L16" ? 2 : 1)
    const marks: Array<string> = []
    let errors = 0
    let sequence = 0
    let chunk = 0
    let outboundChunk = 0
    let open = false
    let started = false
    const send = (message: Record<string, unknown>) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ ...message, sequence_number: String(++sequence) }))
    }
    const sendBack = (name: string) => {
      marks.push(name)
      send({ event: "mark", stream_id: streamId, mark: { name } })
    }
    const refuse = (detail: string) => {
      errors++
      send({ event: "error", stream_id: streamId, payload: { code: 100002, title: "Unknown error", detail } })
    }
    /** Plays one frame's worth of the queue; marks at its head come back once the audio before them played. */
    const playout = FakePlayout.make<string>({
      frameBytes,
      frameMillis: input.frameMillis,
      reached: sendBack,
      // With both tracks, what plays goes back as the outbound track.
      played: (take) => {
        if (!input.bothTracks) return
        outboundChunk++
        send({
          event: "media",
          stream_id: streamId,
          media: { track: "outbound", chunk: String(outboundChunk), timestamp: String(outboundChunk * 20), payload: Buffer.from(take).toString("base64") }
        })
      }
    })
    const closed = new Promise<void>((done) =>
      socket.on("close", () => {
        open = false
        playout.stop()
        done()
      })
    )
    socket.on("error", (error) => {
      if (!open) reject(error)
    })
    socket.on("unexpected-response", (_request, response) => {
      reject(new Error(`media stream refused with HTTP ${response.statusCode}`))
    })
    socket.on("message", (raw, isBinary) => {
      if (isBinary) return refuse("binary frames are not supported: send JSON text frames")
      let message: any
      try {
        message = JSON.parse(raw.toString())
      } catch {
        return refuse("the frame is not JSON")
      }
      switch (message?.event) {
        case "media": {
          const payload = message.media?.payload
          if (typeof payload !== "string" || !BASE64.test(payload)) return refuse("media.payload must be base64")
          if (!started) return refuse("media before the stream started")
          playout.audio(new Uint8Array(Buffer.from(payload, "base64")))
          break
        }
        case "mark": {
          const name = message.mark?.name
          if (typeof name !== "string") return refuse("mark.name is required")
          // Nothing queued: the mark is reached at once.
          if (playout.isEmpty()) sendBack(name)
          else playout.mark(name)
          break
        }
        case "clear":
          // The marks a clear dropped come back.
          for (const name of playout.clear()) sendBack(name)
          break
        default:
          refuse(`unknown event ${String(message?.event)}`)
      }
    })
    socket.on("open", () => {
      open = true
      socket.send(JSON.stringify({ event: "connected", version: "1.0.0" }))
      resolve({
        streamId,
        url: input.url,
        format: input.format,
        received: playout.received,
        played: playout.played,
        marks: () => [...marks],
        clears: playout.clears,
        errors: () => errors,
        start: () => {
          if (started) return
          started = true
          send({
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
        speak: (audio) => {
          if (!started) return
          for (let offset = 0; offset < audio.length; offset += frameBytes) {
            chunk++
            send({
              event: "media",
              stream_id: streamId,
              media: {
                track: "inbound",
                chunk: String(chunk),
                timestamp: String(chunk * 20),
                payload: Buffer.from(audio.subarray(offset, offset + frameBytes)).toString("base64")
              }
            })
          }
        },
        press: (digit) => send({ event: "dtmf", stream_id: streamId, occurred_at: new Date().toISOString(), dtmf: { digit } }),
        stop: () => {
          if (started) send({ event: "stop", stream_id: streamId, stop: { user_id: "00000000-0000-4000-8000-0000000fa4e0", call_control_id: input.callControlId } })
          socket.close(1000)
        },
        closed,
        isOpen: () => open
      })
    })
  })
