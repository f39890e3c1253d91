/**
 * A stand-in for the Agentline server in the adapter's tests: an HTTP endpoint on 127.0.0.1 that the
 * fake Telnyx posts webhooks to (each verified and parsed by the adapter, as the server does, and
 * answered 401 when the signature does not hold), and a WebSocket endpoint it streams media to, each
 * connection decoded with the adapter's media codec.
 */
import type { MediaEvent, MediaSession } from "@agentline/telephony-kit/Media"
import type { CallEvent, WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { WebSocketServer } from "ws"
import type { TelnyxConfig, TelnyxProvider } from "../src/Telnyx.js"

export interface MediaConnection {
  readonly session: MediaSession
  readonly events: Array<MediaEvent>
  readonly send: (frames: ReadonlyArray<{ readonly _tag: "Text"; readonly text: string } | { readonly _tag: "Binary"; readonly data: Uint8Array }>) => void
  readonly close: () => void
  readonly closed: Promise<void>
}

export interface Receiver {
  readonly url: string
  readonly mediaUrl: string
  /** Every webhook received, in order, with its answer. */
  readonly received: Array<{ readonly path: string; readonly body: any; readonly status: number }>
  /** The events parsed from verified status webhooks (path `/status/...`), in order. */
  readonly events: Array<CallEvent>
  readonly media: Array<MediaConnection>
  /** Inbound webhooks (path `/inbound`) go here instead of `parseStatus`. */
  onInbound: (request: WebhookRequest) => Promise<number>
  readonly close: () => Promise<void>
}

const waitFor = async <A>(what: string, get: () => A | undefined, timeoutMillis = 5000): Promise<A> => {
  const deadline = Date.now() + timeoutMillis
  for (;;) {
    const value = get()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
export { waitFor }

export const startReceiver = async (adapter: TelnyxProvider, config: () => TelnyxConfig): Promise<Receiver> => {
  const received: Receiver["received"] = []
  const events: Array<CallEvent> = []
  const media: Array<MediaConnection> = []
  let port = 0
  const receiver: Receiver = {
    get url() {
      return `http://127.0.0.1:${port}`
    },
    get mediaUrl() {
      return `ws://127.0.0.1:${port}/media`
    },
    received,
    events,
    media,
    onInbound: async () => 200,
    close: async () => {
      for (const client of sockets.clients) client.terminate()
      await new Promise<void>((resolve) => sockets.close(() => resolve()))
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
    }
  }

  const handle = async (path: string, request: WebhookRequest): Promise<number> => {
    if (path === "/inbound") return receiver.onInbound(request)
    const ok = await Effect.runPromise(adapter.webhooks.verify({ config: config(), request }))
    if (!ok) return 401
    const parsed = await Effect.runPromise(Effect.either(adapter.webhooks.parseStatus({ config: config(), request })))
    if (parsed._tag === "Left") return 422
    events.push(...parsed.right)
    return 200
  }

  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", async () => {
      const rawBody = new Uint8Array(Buffer.concat(chunks))
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(request.headers)) if (typeof v === "string") headers[k] = v
      const path = new URL(request.url ?? "/", "http://x").pathname
      const status = await handle(path, { method: request.method ?? "POST", url: `${receiver.url}${request.url}`, headers, rawBody })
      let body: unknown
      try {
        body = JSON.parse(Buffer.from(rawBody).toString("utf8"))
      } catch {
        body = undefined
      }
      received.push({ path, body, status })
      response.writeHead(status, { "content-type": "application/json" })
      response.end("{}")
    })
  })
  const sockets = new WebSocketServer({ server, path: "/media" })
  sockets.on("connection", (socket) => {
    const session = Effect.runSync(adapter.media.open)
    const connectionEvents: Array<MediaEvent> = []
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()))
    media.push({
      session,
      events: connectionEvents,
      send: (frames) => {
        for (const frame of frames) socket.send(frame._tag === "Text" ? frame.text : frame.data)
      },
      close: () => socket.close(1000),
      closed
    })
    socket.on("message", (raw, isBinary) => {
      const frame = isBinary ? { _tag: "Binary" as const, data: new Uint8Array(raw as Buffer) } : { _tag: "Text" as const, text: raw.toString() }
      connectionEvents.push(...Effect.runSync(Effect.orDie(session.decode(frame))))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  return receiver
}
