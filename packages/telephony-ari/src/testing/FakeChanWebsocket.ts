/**
 * The fake's chan_websocket channel: a WebSocket CLIENT that dials the application's media endpoint
 * (the URI of a websocket_client.conf entry, with the externalMedia call's `v(k=v,...)` parameters
 * appended as a query), with the `media` subprotocol, as Asterisk 20.16 / 21.11 / 22.6 / 23+ does.
 * Once open it sends `MEDIA_START connection_id:... channel:... channel_id:... format:ulaw
 * optimal_frame_size:160 ptime:20`, then the caller's audio as 160-byte µ-law BINARY frames and
 * `DTMF_END digit:N channel_id:<id>`. It plays what it is sent in real time (20 ms per 160 bytes):
 * `MARK_MEDIA <id>` puts a mark in the queue and `MEDIA_MARK_PROCESSED <id>` comes back when the audio
 * before it has played; `FLUSH_MEDIA` frees the whole queue, marks included, without a word (as
 * chan_websocket.c does); `REPORT_QUEUE_DRAINED` asks for one `QUEUE_DRAINED` once the queue is empty;
 * `HANGUP` hangs the channel up. Control messages are case-sensitive plain-text TEXT frames (the default
 * control format); an unknown one gets `ERROR`. As chan_websocket does, a BINARY message is queued in
 * whole 160-byte frames only: without `START_MEDIA_BUFFERING` the rest of the message is dropped (counted
 * in `dropped`); with it, bytes are gathered until they make a whole frame.
 */
import * as FakePlayout from "@agentline/telephony-kit/testing/FakePlayout"
import WebSocket from "ws"

export interface MediaLeg {
  readonly connectionId: string
  /** The URL the channel dialed (the server's, with its token). */
  readonly url: string
  /** Everything the application sent as audio, played or not (µ-law). */
  readonly received: () => Uint8Array
  /** What the caller heard: `received` less what `FLUSH_MEDIA` dropped. */
  readonly played: () => Uint8Array
  /** Marks reported back, in order. */
  readonly marks: () => ReadonlyArray<string>
  readonly flushes: () => number
  /** Bytes of the application's audio dropped for not making a whole frame (buffering off). */
  readonly dropped: () => number
  /** The caller speaks: µ-law bytes, sent as 160-byte frames. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  /** Asterisk hangs the media channel up: the socket closes. */
  readonly close: () => void
  readonly closed: Promise<void>
  readonly isOpen: () => boolean
}

const FRAME = 160

/** `v(token=abc,x=1)` as query parameters; other dial options (`c(ulaw)`, `n`) are not parameters. */
export const uriParams = (transportData: string | undefined): Record<string, string> => {
  const match = /v\(([^)]*)\)/.exec(transportData ?? "")
  const params: Record<string, string> = {}
  if (match === null) return params
  for (const pair of match[1]!.split(",")) {
    const eq = pair.indexOf("=")
    if (eq > 0) params[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim()
  }
  return params
}

export const dial = (input: {
  readonly uri: string
  readonly params: Readonly<Record<string, string>>
  readonly connectionId: string
  readonly channelName: string
  readonly channelId: string
  /** The application sent HANGUP. */
  readonly onHangup: () => void
}): Promise<MediaLeg> =>
  new Promise((resolve, reject) => {
    const url = new URL(input.uri)
    for (const [k, v] of Object.entries(input.params)) url.searchParams.set(k, v)
    // websocket_client.conf's connection_timeout: a server that never completes the handshake (one
    // shutting down) is given up on rather than held open.
    const socket = new WebSocket(url.toString(), "media", { handshakeTimeout: 3000 })
    const marks: Array<string> = []
    let open = false
    const text = (message: string) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(message)
    }
    let reportDrained = false
    const processed = (name: string) => {
      marks.push(name)
      text(name === "" ? "MEDIA_MARK_PROCESSED" : `MEDIA_MARK_PROCESSED ${name}`)
    }
    const playout: FakePlayout.FakePlayout<string> = FakePlayout.make<string>({
      frameBytes: FRAME,
      frameMillis: 20,
      reached: processed,
      beforeTick: () => {
        if (playout.isEmpty() && reportDrained) {
          reportDrained = false
          text("QUEUE_DRAINED")
        }
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
    socket.on("unexpected-response", (_request, response) => reject(new Error(`the media endpoint refused the connection with HTTP ${response.statusCode}`)))
    let buffering = false
    let gathered = new Uint8Array(0)
    let dropped = 0
    socket.on("message", (raw, isBinary) => {
      if (isBinary) {
        const message = new Uint8Array(raw as Buffer)
        const audio = buffering ? Buffer.concat([gathered, message]) : message
        const whole = audio.length - (audio.length % FRAME)
        if (buffering) gathered = audio.slice(whole)
        else dropped += audio.length - whole
        if (whole > 0) playout.audio(audio.subarray(0, whole))
        return
      }
      const [command, ...args] = raw.toString().trim().split(/\s+/)
      switch (command) {
        case "MARK_MEDIA":
          playout.mark(args.join(" "))
          return
        case "FLUSH_MEDIA":
          // Marks included, without a word.
          playout.clear()
          return
        case "REPORT_QUEUE_DRAINED":
          reportDrained = true
          return
        case "HANGUP":
          input.onHangup()
          return
        case "START_MEDIA_BUFFERING":
          buffering = true
          return
        case "STOP_MEDIA_BUFFERING":
          buffering = false
          gathered = new Uint8Array(0)
          return
        case "ANSWER":
        case "PAUSE_MEDIA":
        case "CONTINUE_MEDIA":
        case "GET_STATUS":
          return
        default:
          text(`ERROR Unknown command: ${command ?? ""}`)
      }
    })
    socket.on("open", () => {
      open = true
      text(
        `MEDIA_START connection_id:${input.connectionId} channel:${input.channelName} channel_id:${input.channelId} format:ulaw optimal_frame_size:${FRAME} ptime:20`
      )
      resolve({
        connectionId: input.connectionId,
        url: url.toString(),
        received: playout.received,
        played: playout.played,
        marks: () => [...marks],
        flushes: playout.clears,
        dropped: () => dropped,
        speak: (audio) => {
          for (let offset = 0; offset < audio.length; offset += FRAME) {
            if (socket.readyState === WebSocket.OPEN) socket.send(audio.subarray(offset, offset + FRAME))
          }
        },
        press: (digit) => text(`DTMF_END digit:${digit} channel_id:${input.channelId}`),
        close: () => socket.close(1000),
        closed,
        isOpen: () => open
      })
    })
  })
