/**
 * The media leg of a fake Exotel call: a WebSocket client to the call's `StreamUrl` speaking the
 * Voicebot protocol (`connected`, `start` with the URL's query as `custom_parameters`, 100 ms chunks of
 * base64 16-bit PCM at 8 kHz or the URL's `sample-rate`, `dtmf`, `stop`), playing what it is sent in
 * real time (`FakePlayout`): `media` is queued, a `mark` comes back once the audio before it has
 * played, `clear` drops what is queued (and sends back the marks it dropped).
 */
import * as FakeJson from "@agentline/telephony-kit/testing/FakeJson"
import * as FakeMediaLeg from "@agentline/telephony-kit/testing/FakeMediaLeg"
import * as Crypto from "node:crypto"

/** A 32-hex-digit Exotel id (calls, streams). */
export const sidOf = () => Crypto.randomBytes(16).toString("hex")

export type MediaLeg = FakeMediaLeg.MediaLeg & {
  readonly streamSid: string
  readonly sampleRate: number
  /** Audio chunks that were not whole 20 ms frames (Exotel plays them with gaps). */
  readonly ragged: () => number
  /** The person speaks: PCM (16-bit little-endian) sent in 100 ms `media` chunks. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  /** The call ended on Exotel's side: `stop`, then the socket closes. */
  readonly stop: () => void
}

export const connectMedia = (input: {
  readonly url: string
  readonly callSid: string
  readonly accountSid: string
  readonly from: string
  readonly to: string
  /** Real milliseconds per 20 ms of audio. */
  readonly frameMillis: number
}): Promise<MediaLeg> => {
  const parsed = new URL(input.url)
  const sampleRate = Number(parsed.searchParams.get("sample-rate") ?? 8000)
  const customParameters: Record<string, string> = {}
  for (const [k, v] of parsed.searchParams) if (k !== "sample-rate") customParameters[k] = v
  const frameBytes = (sampleRate / 50) * 2
  const streamSid = sidOf()
  let ragged = 0
  let sequence = 0
  let chunk = 0
  const send = (socket: FakeMediaLeg.LegSocket, message: Record<string, unknown>) =>
    socket.sendJson({ ...message, sequence_number: String(++sequence) })
  const echo = (socket: FakeMediaLeg.LegSocket, name: string) => {
    socket.reportMark(name)
    send(socket, { event: "mark", stream_sid: streamSid, mark: { name } })
  }
  return FakeMediaLeg.connect({
    url: input.url,
    format: { encoding: "l16le", sampleRate },
    frameMillis: input.frameMillis,
    protocol: {
      binary: (_data, socket) => socket.close(1003, "Exotel streams are text only"),
      text: (text, socket) => {
        const message = FakeJson.parse(text)
        if (message === undefined) return socket.close(1007, "not JSON")
        const sid = FakeJson.text(message, "stream_sid") ?? FakeJson.text(message, "streamSid")
        if (sid !== undefined && sid !== streamSid) return
        switch (FakeJson.text(message, "event")) {
          case "media": {
            const audio = new Uint8Array(Buffer.from(FakeJson.text(message, "media", "payload") ?? "", "base64"))
            if (audio.length % frameBytes !== 0) ragged++
            return socket.playout.audio(audio)
          }
          case "mark":
            return socket.playout.mark(FakeJson.text(message, "mark", "name") ?? "")
          case "clear":
            // The marks a clear dropped come back, as Twilio's do.
            for (const name of socket.playout.clear()) echo(socket, name)
        }
      },
      reached: (name, socket) => echo(socket, name),
      opened: (socket) => {
        send(socket, { event: "connected" })
        send(socket, {
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
        return {
          streamSid,
          sampleRate,
          ragged: () => ragged,
          speak: (audio: Uint8Array) => {
            for (const payload of FakeMediaLeg.pieces(audio, frameBytes * 5)) {
              chunk++
              send(socket, {
                event: "media",
                stream_sid: streamSid,
                media: { chunk: String(chunk), timestamp: String(chunk * 100), payload: Buffer.from(payload).toString("base64") }
              })
            }
          },
          press: (digit: string) => send(socket, { event: "dtmf", stream_sid: streamSid, dtmf: { digit, duration: "100" } }),
          stop: () => {
            send(socket, { event: "stop", stream_sid: streamSid, stop: { call_sid: input.callSid, account_sid: input.accountSid, reason: "callended" } })
            socket.close(1000)
          }
        }
      }
    }
  })
}
