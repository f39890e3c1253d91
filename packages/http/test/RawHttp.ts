/**
 * Requests the platform's HTTP client cannot send: a `Content-Length` far larger than what is sent, or
 * a chunked body that never ends. The answer is awaited while the body is still incomplete, so a
 * server that reads bodies whole before answering never answers (the test then times out).
 */
import { HttpServer } from "@effect/platform"
import { Effect } from "effect"
import * as NodeHttp from "node:http"

export interface RawReply {
  readonly status: number
  readonly headers: NodeHttp.IncomingHttpHeaders
  readonly body: any
  /** Bytes of the request body written before the answer came. */
  readonly sent: number
}

export interface RawRequest {
  readonly method: string
  readonly path: string
  readonly headers?: Record<string, string | number>
  /** Written one after another; the request is never ended unless `end` is set. */
  readonly chunks: ReadonlyArray<Uint8Array | string>
  readonly end?: boolean
}

export const rawRequest = (request: RawRequest) =>
  Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const address = server.address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("the test server has no TCP address")
    return yield* Effect.async<RawReply>((resume) => {
      let sent = 0
      const req = NodeHttp.request({
        host: address.hostname,
        port: address.port,
        method: request.method,
        path: request.path,
        headers: request.headers ?? {},
        agent: false
      })
      req.on("response", (response) => {
        const parts: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => parts.push(chunk))
        response.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8")
          let body: unknown = text
          try {
            body = JSON.parse(text)
          } catch {
            // keep the text
          }
          req.destroy()
          resume(Effect.succeed({ status: response.statusCode ?? 0, headers: response.headers, body, sent }))
        })
      })
      // The server may close the connection while the body is still being written: expected.
      req.on("error", () => {})
      const writeNext = (index: number) => {
        if (index >= request.chunks.length) {
          if (request.end) req.end()
          return
        }
        const chunk = request.chunks[index]!
        req.write(chunk, () => {
          sent += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length
          writeNext(index + 1)
        })
      }
      writeNext(0)
      return Effect.sync(() => req.destroy())
    })
  })
