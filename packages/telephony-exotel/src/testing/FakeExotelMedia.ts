/**
 * The media leg of a fake Exotel call: a WebSocket client to the call's `StreamUrl` speaking the
 * Voicebot protocol (`connected`, `start` with the URL's query as `custom_parameters`, 100 ms chunks of
 * base64 16-bit PCM at 8 kHz or the URL's `sample-rate`, `dtmf`, `stop`), playing what it is sent in
 * real time (`FakePlayout`): `media` is queued, a `mark` comes back once the audio before it has
 * played, `clear` drops what is queued (and sends back the marks it dropped).
 */
import * as FakePlayout from "@agentline/core/testing/FakePlayout"
import * as Crypto from "node:crypto"
import WebSocket from "ws"

/** A 32-hex-digit Exotel id (calls, streams). */
export const sidOf = () => Crypto.randomBytes(16).toString("hex")

export interface MediaLeg {
  readonly streamSid: string
  readonly url: string
  readonly sampleRate: number
  /** Everything the server sent as audio (16-bit PCM little-endian), played or not. */
  readonly received: () => Uint8Array
  /** What the callee heard: `received` less what a `clear` dropped. */
  readonly played: () => Uint8Array
  readonly marks: () => ReadonlyArray<string>
  readonly clears: () => number
  /** Audio chunks that were not whole 20 ms frames (Exotel plays them with gaps). */
  readonly ragged: () => number
  /** The person speaks: PCM (16-bit little-endian) sent in 100 ms `media` chunks. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  /** The call ended on Exotel's side: `stop`, then the socket closes. */
  readonly stop: () => void
  readonly closed: Promise<void>
  readonly isOpen: () => boolean
}

export const connectMedia = (input: {
  readonly url: string
  readonly callSid: string
  readonly accountSid: string
  readonly from: string
  readonly to: string
  /** Real milliseconds per 20 ms of audio. */
  readonly frameMillis: number
}): Promise<MediaLeg> =>
  new Promise((resolve, reject) => {
    const parsed = new URL(input.url)
    const sampleRate = Number(parsed.searchParams.get("sample-rate") ?? 8000)
    const customParameters: Record<string, string> = {}
    for (const [k, v] of parsed.searchParams) if (k !== "sample-rate") customParameters[k] = v
    const frameBytes = (sampleRate / 50) * 2
    const socket = new WebSocket(input.url)
    const streamSid = sidOf()
    const marks: Array<string> = []
    let ragged = 0
    let sequence = 0
    let chunk = 0
    let open = false
    const send = (message: Record<string, unknown>) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ ...message, sequence_number: String(++sequence) }))
    }
    const echo = (name: string) => {
      marks.push(name)
      send({ event: "mark", stream_sid: streamSid, mark: { name } })
    }
    const playout = FakePlayout.make<string>({ frameBytes, frameMillis: input.frameMillis, reached: echo })
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
    socket.on("unexpected-response", (_request, response) => reject(new Error(`media stream refused with HTTP ${response.statusCode}`)))
    socket.on("message", (raw, isBinary) => {
      if (isBinary) return socket.close(1003, "Exotel streams are text only")
      let message: any
      try {
        message = JSON.parse(raw.toString())
      } catch {
        return socket.close(1007, "not JSON")
      }
      const sid = message?.stream_sid ?? message?.streamSid
      if (sid !== undefined && sid !== streamSid) return
      switch (message?.event) {
        case "media": {
          const audio = new Uint8Array(Buffer.from(String(message.media?.payload ?? ""), "base64"))
          if (audio.length % frameBytes !== 0) ragged++
          playout.audio(audio)
          break
        }
        case "mark":
          playout.mark(String(message.mark?.name ?? ""))
          break
        case "clear":
          // The marks a clear dropped come back, as Twilio's do.
          for (const name of playout.clear()) echo(name)
          break
      }
    })
    socket.on("open", () => {
      open = true
      send({ event: "connected" })
      send({
        event: "start",
        stream_sid: streamSid,
        start: {
          stream_sid: streamSid,
          call_sid: input.callSid,
          account_sid: input.accountSid,
          from: input.from,
          to: input.to,
          custom_parameters: customParameters,
          media_format: { encoding: "base64", sample_rate: String(sampleRate), bit_rate: "128kbps" }
        }
      })
      const chunkBytes = frameBytes * 5
      resolve({
        streamSid,
        url: input.url,
        sampleRate,
        received: playout.received,
        played: playout.played,
        marks: () => [...marks],
        clears: playout.clears,
        ragged: () => ragged,
        speak: (audio) => {
          for (let offset = 0; offset < audio.length; offset += chunkBytes) {
            chunk++
            send({
              event: "media",
              stream_sid: streamSid,
              media: {
                chunk: String(chunk),
                timestamp: String(chunk * 100),
                payload: Buffer.from(audio.subarray(offset, offset + chunkBytes)).toString("base64")
              }
            })
          }
        },
        press: (digit) => send({ event: "dtmf", stream_sid: streamSid, dtmf: { digit, duration: "100" } }),
        stop: () => {
          send({ event: "stop", stream_sid: streamSid, stop: { call_sid: input.callSid, account_sid: input.accountSid, reason: "callended" } })
          socket.close(1000)
        },
        closed,
        isOpen: () => open
      })
    })
  })
