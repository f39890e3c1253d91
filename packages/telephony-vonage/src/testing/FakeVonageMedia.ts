/**
 * The fake's side of Vonage's media WebSocket (NCCO `connect` to a `websocket` endpoint): a WebSocket
 * client that dials the endpoint's URI as Vonage does, sends `websocket:connected` with the content type
 * and the endpoint's headers, the caller's audio as binary 20 ms frames of 16-bit little-endian PCM,
 * `websocket:dtmf`; and plays what it is sent in real time (scaled), as Vonage does at 20 ms a frame:
 * binary audio is queued, a `notify` is answered with `websocket:notify` (its payload) once the audio
 * queued before it has played, `clear` drops the unplayed audio and the notifications behind it and is
 * answered with `websocket:cleared`. When the call ends Vonage closes the socket.
 */
import * as FakeJson from "@agentline/telephony-kit/testing/FakeJson"
import * as FakeMediaLeg from "@agentline/telephony-kit/testing/FakeMediaLeg"

export type MediaLeg = FakeMediaLeg.MediaLeg & {
  readonly sampleRate: number
  /** The person speaks: L16 LE audio at the stream's rate, sent as 20 ms frames. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  /** The call ended on Vonage's side: the socket closes. */
  readonly stop: () => void
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
}): Promise<MediaLeg> => {
  const sampleRate = rateOf(input.contentType)
  if (sampleRate === undefined) return Promise.reject(new Error(`Vonage does not stream ${input.contentType}`))
  const frameBytes = (sampleRate / 50) * 2
  return FakeMediaLeg.connect({
    url: input.uri,
    format: { encoding: "l16le", sampleRate },
    frameMillis: input.frameMillis,
    protocol: {
      text: (text, socket) => {
        const message = FakeJson.parse(text)
        switch (FakeJson.text(message, "action")) {
          case "notify":
            // The notification's payload is kept as JSON text, answered as it came.
            return socket.playout.mark(JSON.stringify(FakeJson.at(message, "payload") ?? {}))
          case "clear":
            // The notifications behind the dropped audio are dropped with it, unanswered.
            socket.playout.clear()
            return socket.sendJson({ event: "websocket:cleared" })
        }
      },
      // Notifications are answered once the audio queued before them has played.
      reached: (mark, socket) => {
        const payload = FakeJson.parse(mark)
        socket.reportMark(FakeJson.text(payload, "name") ?? mark)
        socket.sendJson({ event: "websocket:notify", payload })
      },
      opened: (socket) => {
        socket.sendJson({ event: "websocket:connected", "content-type": input.contentType, ...input.headers })
        return {
          sampleRate,
          speak: (audio: Uint8Array) => {
            for (const frame of FakeMediaLeg.pieces(audio, frameBytes)) socket.sendBinary(frame)
          },
          press: (digit: string) => socket.sendJson({ event: "websocket:dtmf", digit, duration: 260 }),
          stop: () => socket.close(1000)
        }
      }
    }
  })
}
