/**
 * A local fake of Cartesia's TTS WebSocket (`/tts/websocket`, 127.0.0.1 only): checks `X-API-Key` and
 * `Cartesia-Version` on the handshake (401 / 400 otherwise; `rateLimited` refuses with 429), answers each
 * generation request with Cartesia's messages for its `context_id` (`chunk` with base64 audio, one
 * byte 0x33 per character, `status_code` 206; `timestamps` when asked; `done` after the request with
 * `continue: false`), records `cancel`s. `drop` cuts the connection after the first chunk; `error`
 * sends an `error` message with status 400.
 */
import { Effect } from "effect"
import type { AddressInfo } from "node:net"
import { WebSocketServer } from "ws"

export interface FakeCartesiaOptions {
  readonly key: string
  readonly rateLimited?: boolean
  readonly drop?: boolean
  readonly error?: string
}

export const startFakeCartesia = (options: FakeCartesiaOptions) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; messages: Array<any>; server: WebSocketServer }>((resume) => {
      const messages: Array<any> = []
      const server = new WebSocketServer({
        host: "127.0.0.1",
        port: 0,
        verifyClient: (info, done) => {
          if (options.rateLimited === true) return done(false, 429, "Too Many Requests")
          if (info.req.headers["cartesia-version"] === undefined) return done(false, 400, "Bad Request")
          done(info.req.headers["x-api-key"] === options.key, 401, "Unauthorized")
        }
      })
      server.on("connection", (socket) => {
        socket.on("message", (data) => {
          const message = JSON.parse(data.toString())
          messages.push(message)
          if (message.cancel === true) return
          const contextId = message.context_id
          if (options.error !== undefined) {
            return socket.send(JSON.stringify({ type: "error", context_id: contextId, done: true, status_code: 400, title: "Invalid request", message: options.error, error_code: "invalid_request" }))
          }
          if (message.transcript.length > 0) {
            socket.send(JSON.stringify({
              type: "chunk",
              data: Buffer.alloc(message.transcript.length, 0x33).toString("base64"),
              done: false,
              status_code: 206,
              step_time: 12,
              context_id: contextId
            }))
            if (options.drop === true) return socket.terminate()
            if (message.add_timestamps === true) {
              const words = message.transcript.trim().split(/\s+/)
              socket.send(JSON.stringify({ type: "timestamps", context_id: contextId, status_code: 206, done: false, word_timestamps: { words, start: words.map((_: string, i: number) => i * 0.3), end: words.map((_: string, i: number) => i * 0.3 + 0.25) } }))
            }
          }
          if (message.continue === false) {
            socket.send(JSON.stringify({ type: "done", done: true, status_code: 206, context_id: contextId }))
          }
        })
      })
      server.on("listening", () =>
        resume(Effect.succeed({ url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, messages, server })))
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        for (const client of server.clients) client.terminate()
        server.close(() => resume(Effect.void))
      })
  )
