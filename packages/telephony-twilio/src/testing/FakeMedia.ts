/**
 * The fake's side of a Twilio Media Stream (`<Connect><Stream>`): a WebSocket client that connects to
 * the stream URL as Twilio does (with `X-Twilio-Signature` over the URL on the upgrade), sends
 * `connected`, `start` (with the `<Parameter>`s), the caller's audio as 20 ms µ-law `media` frames,
 * `dtmf` and `stop`; and plays what it is sent in real time (scaled): `media` audio is queued, a `mark`
 * is echoed once the audio queued before it has played, `clear` drops the unplayed audio and echoes
 * the marks it dropped, as Twilio does.
 */
import * as FakePlayout from "@agentline/core/testing/FakePlayout"
import * as Crypto from "node:crypto"
import WebSocket from "ws"
import { sign } from "../Signature.js"

/** 20 ms of µ-law at 8 kHz. */
export const FRAME_BYTES = 160

export interface MediaLeg {
  readonly streamSid: string
  readonly url: string
  /** Everything the server sent as audio (µ-law), played or not. */
  readonly received: () => Uint8Array
  /** The audio the callee heard: `received` less what a `clear` dropped. */
  readonly played: () => Uint8Array
  /** Marks echoed back to the server, in order. */
  readonly marks: () => ReadonlyArray<string>
  readonly clears: () => number
  /** The caller speaks: `audio` (µ-law 8 kHz) goes to the server as 20 ms media frames. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  /** The call ended on Twilio's side: `stop`, then the socket closes. */
  readonly stop: () => void
  /** Resolves when the socket has closed, whoever closed it. */
  readonly closed: Promise<void>
  readonly isOpen: () => boolean
}

export const connect = (input: {
  readonly url: string
  readonly parameters: Readonly<Record<string, string>>
  readonly callSid: string
  readonly accountSid: string
  readonly authToken: string
  /** Real milliseconds per 20 ms media frame. */
  readonly frameMillis: number
}): Promise<MediaLeg> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(input.url, { headers: { "X-Twilio-Signature": sign(input.authToken, input.url) } })
    const streamSid = `MZ${Crypto.randomBytes(16).toString("hex")}`
    const marks: Array<string> = []
    let sequence = 0
    let chunk = 0
    let open = false
    const send = (message: Record<string, unknown>) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ ...message, sequenceNumber: String(++sequence) }))
    }
    const echo = (name: string) => {
      marks.push(name)
      send({ event: "mark", streamSid, mark: { name } })
    }
    const playout = FakePlayout.make<string>({ frameBytes: FRAME_BYTES, frameMillis: input.frameMillis, reached: echo })
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
      if (isBinary) return socket.close(1003, "Twilio media streams are text only")
      let message: any
      try {
        message = JSON.parse(raw.toString())
      } catch {
        return socket.close(1007, "not JSON")
      }
      if (message?.streamSid !== streamSid) return
      switch (message.event) {
        case "media": {
          playout.audio(new Uint8Array(Buffer.from(String(message.media?.payload ?? ""), "base64")))
          break
        }
        case "mark":
          playout.mark(String(message.mark?.name ?? ""))
          break
        case "clear":
          // Twilio reports the marks a clear dropped as reached.
          for (const name of playout.clear()) echo(name)
          break
      }
    })
    socket.on("open", () => {
      open = true
      send({ event: "connected", protocol: "Call", version: "1.0.0" })
      send({
        event: "start",
        streamSid,
        start: {
          streamSid,
          accountSid: input.accountSid,
          callSid: input.callSid,
          tracks: ["inbound"],
          customParameters: input.parameters,
          mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 }
        }
      })
      resolve({
        streamSid,
        url: input.url,
        received: playout.received,
        played: playout.played,
        marks: () => [...marks],
        clears: playout.clears,
        speak: (audio) => {
          for (let offset = 0; offset < audio.length; offset += FRAME_BYTES) {
            chunk++
            send({
              event: "media",
              streamSid,
              media: {
                track: "inbound",
                chunk: String(chunk),
                timestamp: String(chunk * 20),
                payload: Buffer.from(audio.subarray(offset, offset + FRAME_BYTES)).toString("base64")
              }
            })
          }
        },
        press: (digit) => send({ event: "dtmf", streamSid, dtmf: { track: "inbound_track", digit } }),
        stop: () => {
          send({ event: "stop", streamSid, stop: { accountSid: input.accountSid, callSid: input.callSid } })
          socket.close(1000)
        },
        closed,
        isOpen: () => open
      })
    })
  })
