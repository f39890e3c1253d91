/**
 * A local fake of ElevenLabs' input-streaming TTS WebSocket
 * (`/v1/text-to-speech/{voice_id}/stream-input`, 127.0.0.1 only): checks the `xi-api-key` handshake
 * header (401 otherwise; `rateLimited` refuses with 429), expects the first message `{"text":" "}`,
 * answers every flushed text with audio chunks (base64, one byte per character, 0x55) and the
 * documented alignment (`chars`, `charStartTimesMs`, `charsDurationsMs`), and `{"isFinal":true}` after
 * `{"text":""}`. `drop` cuts the connection after the first audio; `error` sends an error object and
 * closes with 1008.
 */
import { Effect } from "effect"
import type { AddressInfo } from "node:net"
import { WebSocketServer } from "ws"

export interface FakeElevenLabsOptions {
  readonly key: string
  readonly rateLimited?: boolean
  readonly drop?: boolean
  readonly error?: string
}

export const startFakeElevenLabs = (options: FakeElevenLabsOptions) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; paths: Array<string>; messages: Array<any>; server: WebSocketServer }>((resume) => {
      const paths: Array<string> = []
      const messages: Array<any> = []
      const server = new WebSocketServer({
        host: "127.0.0.1",
        port: 0,
        verifyClient: (info, done) =>
          options.rateLimited === true
            ? done(false, 429, "Too Many Requests")
            : done(info.req.headers["xi-api-key"] === options.key, 401, "Unauthorized")
      })
      server.on("connection", (socket, request) => {
        paths.push(request.url ?? "")
        socket.on("message", (data) => {
          const message = JSON.parse(data.toString())
          messages.push(message)
          if (messages.length === 1 && message.text !== " ") {
            socket.send(JSON.stringify({ message: "first message must be a single space", error: "invalid_request" }))
            return socket.close(1008)
          }
          if (message.text === "") {
            socket.send(JSON.stringify({ audio: null, isFinal: true, normalizedAlignment: null, alignment: null }))
            return socket.close(1000)
          }
          if (message.text === " " || message.flush !== true) return
          if (options.error !== undefined) {
            socket.send(JSON.stringify({ message: options.error, error: "quota_exceeded", code: 1008 }))
            return socket.close(1008, "quota_exceeded")
          }
          const chars = [...message.text]
          const alignment = {
            chars,
            charStartTimesMs: chars.map((_, i) => i * 50),
            charsDurationsMs: chars.map(() => 50)
          }
          socket.send(JSON.stringify({
            audio: Buffer.alloc(chars.length, 0x55).toString("base64"),
            isFinal: null,
            normalizedAlignment: alignment,
            alignment
          }))
          if (options.drop === true) socket.terminate()
        })
      })
      server.on("listening", () =>
        resume(Effect.succeed({ url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, messages, server })))
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        for (const client of server.clients) client.terminate()
        server.close(() => resume(Effect.void))
      })
  )
