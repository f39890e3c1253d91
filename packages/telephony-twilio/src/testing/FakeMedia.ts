/**
 * The fake's side of a Twilio Media Stream (`<Connect><Stream>`), on the kit's media leg: a WebSocket
 * client that connects to the stream URL as Twilio does (with `X-Twilio-Signature` over the URL on the
 * upgrade), sends `connected`, `start` (with the `<Parameter>`s), the caller's audio as 20 ms µ-law
 * `media` frames, `dtmf` and `stop`; and plays what it is sent in real time (scaled): `media` audio is
 * queued, a `mark` is echoed once the audio queued before it has played, `clear` drops the unplayed
 * audio and echoes the marks it dropped, as Twilio does.
 */
import * as FakeJson from "@agentline/telephony-kit/testing/FakeJson"
import * as FakeMediaLeg from "@agentline/telephony-kit/testing/FakeMediaLeg"
import * as Crypto from "node:crypto"
import { sign } from "../Signature.js"

/** 20 ms of µ-law at 8 kHz. */
export const FRAME_BYTES = 160

export type MediaLeg = FakeMediaLeg.MediaLeg & {
  readonly streamSid: string
  /** The caller speaks: `audio` (µ-law 8 kHz) goes to the server as 20 ms media frames. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  /** The call ended on Twilio's side: `stop`, then the socket closes. */
  readonly stop: () => void
  /** Calls `listener` with each `media` payload the application sends, as it arrives (benchmarks time them). */
  readonly listen: (listener: (audio: Uint8Array) => void) => void
}

export const connect = (input: {
  readonly url: string
  readonly parameters: Readonly<Record<string, string>>
  readonly callSid: string
  readonly accountSid: string
  readonly authToken: string
  /** Real milliseconds per 20 ms media frame. */
  readonly frameMillis: number
}): Promise<MediaLeg> => {
  const streamSid = `MZ${Crypto.randomBytes(16).toString("hex")}`
  let sequence = 0
  let chunk = 0
  let listener: ((audio: Uint8Array) => void) | undefined
  const send = (socket: FakeMediaLeg.LegSocket, message: Record<string, unknown>) =>
    socket.sendJson({ ...message, sequenceNumber: String(++sequence) })
  const echo = (socket: FakeMediaLeg.LegSocket, name: string) => {
    socket.reportMark(name)
    send(socket, { event: "mark", streamSid, mark: { name } })
  }
  return FakeMediaLeg.connect({
    url: input.url,
    headers: { "X-Twilio-Signature": sign(input.authToken, input.url) },
    format: { encoding: "mulaw", sampleRate: 8000 },
    frameMillis: input.frameMillis,
    protocol: {
      binary: (_data, socket) => socket.close(1003, "Twilio media streams are text only"),
      text: (text, socket) => {
        const message = FakeJson.parse(text)
        if (message === undefined) return socket.close(1007, "not JSON")
        if (FakeJson.text(message, "streamSid") !== streamSid) return
        switch (FakeJson.text(message, "event")) {
          case "media": {
            const audio = new Uint8Array(Buffer.from(FakeJson.text(message, "media", "payload") ?? "", "base64"))
            listener?.(audio)
            return socket.playout.audio(audio)
          }
          case "mark":
            return socket.playout.mark(FakeJson.text(message, "mark", "name") ?? "")
          case "clear":
            // Twilio reports the marks a clear dropped as reached.
            for (const name of socket.playout.clear()) echo(socket, name)
        }
      },
      reached: (name, socket) => echo(socket, name),
      opened: (socket) => {
        send(socket, { event: "connected", protocol: "Call", version: "1.0.0" })
        send(socket, {
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
        return {
          streamSid,
          speak: (audio: Uint8Array) => {
            for (const payload of FakeMediaLeg.pieces(audio, FRAME_BYTES)) {
              chunk++
              send(socket, {
                event: "media",
                streamSid,
                media: { track: "inbound", chunk: String(chunk), timestamp: String(chunk * 20), payload: Buffer.from(payload).toString("base64") }
              })
            }
          },
          press: (digit: string) => send(socket, { event: "dtmf", streamSid, dtmf: { track: "inbound_track", digit } }),
          listen: (next: (audio: Uint8Array) => void) => {
            listener = next
          },
          stop: () => {
            send(socket, { event: "stop", streamSid, stop: { accountSid: input.accountSid, callSid: input.callSid } })
            socket.close(1000)
          }
        }
      }
    }
  })
}
