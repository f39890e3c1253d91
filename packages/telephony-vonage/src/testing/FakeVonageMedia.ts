/**
 * The fake's side of Vonage's media WebSocket (NCCO `connect` to a `websocket` endpoint): a WebSocket
 * client that dials the endpoint's URI as Vonage does, sends `websocket:connected` with the content type
 * and the endpoint's headers, the caller's audio as binary 20 ms frames of 16-bit little-endian PCM,
 * `websocket:dtmf`; and plays what it is sent in real time (scaled), as Vonage does at 20 ms a frame:
 * binary audio is queued, a `notify` is answered with `websocket:notify` (its payload) once the audio
 * queued before it has played, `clear` drops the unplayed audio and the notifications behind it and is
 * answered with `websocket:cleared`. When the call ends Vonage closes the socket.
 */
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

type Queued = { readonly _tag: "Audio"; data: Uint8Array } | { readonly _tag: "Notify"; readonly payload: unknown }

const concat = (chunks: ReadonlyArray<Uint8Array>) => new Uint8Array(Buffer.concat(chunks.map((c) => Buffer.from(c))))

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
    const received: Array<Uint8Array> = []
    const played: Array<Uint8Array> = []
    const marks: Array<string> = []
    const queue: Array<Queued> = []
    let clears = 0
    let open = false
    const send = (message: Record<string, unknown>) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message))
    }
    const notify = (payload: unknown) => {
      const name = typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>).name : undefined
      marks.push(typeof name === "string" ? name : JSON.stringify(payload))
      send({ event: "websocket:notify", payload })
    }
    /** Plays one frame's worth of the queue; notifications at its head are answered once the audio before them has played. */
    const tick = () => {
      let budget = frameBytes
      while (queue.length > 0) {
        const head = queue[0]!
        if (head._tag === "Notify") {
          queue.shift()
          notify(head.payload)
          continue
        }
        if (budget === 0) break
        const take = head.data.subarray(0, budget)
        played.push(take)
        budget -= take.length
        head.data = head.data.subarray(take.length)
        if (head.data.length === 0) queue.shift()
      }
    }
    const player = setInterval(tick, input.frameMillis)
    const closed = new Promise<void>((done) =>
      socket.on("close", () => {
        open = false
        clearInterval(player)
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
        const audio = new Uint8Array(Buffer.isBuffer(raw) ? raw : Buffer.concat(raw as Array<Buffer>))
        received.push(audio)
        queue.push({ _tag: "Audio", data: audio })
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
          queue.push({ _tag: "Notify", payload: message.payload ?? {} })
          break
        case "clear":
          clears++
          queue.splice(0, queue.length)
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
        received: () => concat(received),
        played: () => concat(played),
        marks: () => [...marks],
        clears: () => clears,
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
