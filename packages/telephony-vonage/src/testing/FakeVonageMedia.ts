/**
 * The fake's side of Vonage's media WebSocket (NCCO `connect` to a `websocket` endpoint): a WebSocket
 * client that dials the endpoint's URI as Vonage does, sends `websocket:connected` with the content type
 * and the endpoint's headers, the caller's audio as binary 20 ms frames of 16-bit little-endian PCM,
 * `websocket:dtmf`; and plays what it is sent in real time (scaled), as Vonage does at 20 ms a frame:
 * binary audio is queued, a `notify` is answered with `websocket:notify` (its payload) once the audio
 * queued before it has played, `clear` drops the unplayed audio and the notifications behind it and is
 * answered with `websocket:cleared`. When the call ends Vonage closes the socket.
 */
import * as FakePlayout from "@agentline/telephony-kit/testing/FakePlayout"
import WebSocket from "ws"

export interface MediaLeg {
  readonly url: string
  readonly sampleRate: number
  /** Everything the server sent as audio (L16 LE), played or not. */
  readonly received: () => Uint8Array
  /** The audio the caller heard: `received` less what a `clear` dropped. */
  readonly played: () => Uint8Array
  /** Names (`payload.name`) of the notifications answered, in order. */
  readonly marks: () => ReadonlyArray<string>
  readonly clears: () => number
  /** The person speaks: L16 LE audio at the stream's rate, sent as 20 ms frames. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  /** The call ended on Vonage's side: the socket closes. */
  readonly stop: () => void
  readonly closed: Promise<void>
  readonly isOpen: () => boolean
}

/** The sample rate of `audio/l16;rate=N` (Vonage takes 8000, 16000 and 24000). */
export const rateOf = (contentType: string): number | undefined => {
  const match = /^audio\/l16;rate=(8000|16000|24000)$/.exec(contentType.replace(/\s+/g, ""))
  return match === null ? undefined : Number(match[1])
}

export const connect = (input: {
  readonly uri: string
  readonly contentType: string
  readonly headers: Readonly<Record<string, unknown>>
  /** Real milliseconds per 20 ms frame. */
  readonly frameMillis: number
}): Promise<MediaLeg> =>
  new Promise((resolve, reject) => {
    const sampleRate = rateOf(input.contentType)
    if (sampleRate === undefined) return reject(new Error(`Vonage does not stream ${input.contentType}`))
    const frameBytes = (sampleRate / 50) * 2
    const socket = new WebSocket(input.uri)
    const marks: Array<string> = []
    let open = false
    const send = (message: Record<string, unknown>) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message))
    }
    const notify = (payload: unknown) => {
      const name = typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>).name : undefined
      marks.push(typeof name === "string" ? name : JSON.stringify(payload))
      send({ event: "websocket:notify", payload })
    }
    // Notifications are answered once the audio queued before them has played.
    const playout = FakePlayout.make<unknown>({ frameBytes, frameMillis: input.frameMillis, reached: notify })
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
      reject(new Error(`websocket refused with HTTP ${response.statusCode}`))
    })
    socket.on("message", (raw, isBinary) => {
      if (isBinary) {
        playout.audio(new Uint8Array(Buffer.isBuffer(raw) ? raw : Buffer.concat(raw as Array<Buffer>)))
        return
      }
      let message: any
      try {
        message = JSON.parse(raw.toString())
      } catch {
        return
      }
      switch (message?.action) {
        case "notify":
          playout.mark(message.payload ?? {})
          break
        case "clear":
          // The notifications behind the dropped audio are dropped with it, unanswered.
          playout.clear()
          send({ event: "websocket:cleared" })
          break
      }
    })
    socket.on("open", () => {
      open = true
      send({ event: "websocket:connected", "content-type": input.contentType, ...input.headers })
      resolve({
        url: input.uri,
        sampleRate,
        received: playout.received,
        played: playout.played,
        marks: () => [...marks],
        clears: playout.clears,
        speak: (audio) => {
          for (let offset = 0; offset < audio.length; offset += frameBytes) {
            if (socket.readyState === WebSocket.OPEN) socket.send(audio.subarray(offset, offset + frameBytes))
          }
        },
        press: (digit) => send({ event: "websocket:dtmf", digit, duration: 260 }),
        stop: () => socket.close(1000),
        closed,
        isOpen: () => open
      })
    })
  })
