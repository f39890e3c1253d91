/**
 * A local fake of Deepgram's live transcription WebSocket (`/v1/listen`, 127.0.0.1 only): checks the
 * `Authorization: Token <key>` handshake header (401 otherwise, as Deepgram refuses the upgrade),
 * counts the binary audio, answers with Deepgram's message shapes (`SpeechStarted`, interim and final
 * `Results` with `speech_final`, `UtteranceEnd`) once enough audio came, and on `CloseStream` sends
 * `Metadata` with the audio duration and closes with 1000. `drop` cuts the TCP connection after the
 * first results; `closeCode` closes with an error code instead (1011 NET-0001).
 */
import { Effect } from "effect"
import type { AddressInfo } from "node:net"
import { WebSocketServer } from "ws"

export interface FakeDeepgramOptions {
  readonly key: string
  readonly words: string
  /** Bytes of audio per second (8000 for 8 kHz µ-law). */
  readonly bytesPerSecond: number
  readonly drop?: boolean
  readonly closeCode?: number
}

export const startFakeDeepgram = (options: FakeDeepgramOptions) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; queries: Array<URLSearchParams>; controls: Array<string>; server: WebSocketServer }>((resume) => {
      const queries: Array<URLSearchParams> = []
      const controls: Array<string> = []
      const server = new WebSocketServer({
        host: "127.0.0.1",
        port: 0,
        verifyClient: (info, done) => done(info.req.headers.authorization === `Token ${options.key}`, 401, "Unauthorized")
      })
      server.on("connection", (socket, request) => {
        queries.push(new URL(request.url ?? "/", "http://x").searchParams)
        let bytes = 0
        let answered = false
        const results = (isFinal: boolean, speechFinal: boolean, transcript: string) => ({
          type: "Results",
          channel_index: [0, 1],
          duration: 1.0,
          start: 0.2,
          is_final: isFinal,
          speech_final: speechFinal,
          from_finalize: false,
          channel: { alternatives: [{ transcript, confidence: 0.98, words: [] }] },
          metadata: { request_id: "req-1", model_info: { name: "general-nova-3", version: "1", arch: "nova-3" }, model_uuid: "m" }
        })
        socket.on("message", (data, isBinary) => {
          if (!isBinary) {
            const message = JSON.parse(data.toString())
            controls.push(message.type)
            if (message.type === "CloseStream") {
              socket.send(JSON.stringify({ type: "Metadata", transaction_key: "deprecated", request_id: "req-1", sha256: "x", created: "2026-11-23T00:00:00.000Z", duration: bytes / options.bytesPerSecond, channels: 1 }))
              socket.close(1000)
            }
            return
          }
          bytes += (data as Buffer).length
          if (!answered && bytes >= options.bytesPerSecond / 2) {
            answered = true
            const half = options.words.split(" ").slice(0, 1).join(" ")
            socket.send(JSON.stringify({ type: "SpeechStarted", channel: [0, 1], timestamp: 0.2 }))
            socket.send(JSON.stringify(results(false, false, half)))
            socket.send(JSON.stringify(results(true, true, options.words)))
            if (options.drop === true) return socket.terminate()
            if (options.closeCode !== undefined) return socket.close(options.closeCode, "NET-0001")
            socket.send(JSON.stringify({ type: "UtteranceEnd", channel: [0, 1], last_word_end: 1.2 }))
          }
        })
      })
      server.on("listening", () =>
        resume(Effect.succeed({ url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, queries, controls, server })))
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        for (const client of server.clients) client.terminate()
        server.close(() => resume(Effect.void))
      })
  )
