/**
 * A fake Asterisk for tests, on 127.0.0.1: the ARI REST API (HTTP Basic with an ari.conf user), the
 * events WebSocket (`/ari/events?app=...`), and chan_websocket channels that dial the application's
 * media endpoint (`FakeChanWebsocket`). Calls play out on a clock scaled by `secondMillis` (real
 * milliseconds per Asterisk second); event timestamps are written on that clock, as Asterisk writes its
 * own.
 *
 * REST: `POST /ari/channels` (originate into a Stasis app: `endpoint`, `app`, `appArgs`, `channelId`,
 * `callerId`, `timeout`, `originator`, as query parameters or a JSON body), `GET` / `DELETE
 * /ari/channels/{id}`, `POST` / `DELETE /ari/channels/{id}/ring` (ringing indicated to a Stasis channel),
 * `POST /ari/channels/externalMedia` (`transport=websocket`, `encapsulation=none`, `external_host=<a
 * websocket client>`, `format`, `transport_data=v(...)`), `POST /ari/bridges`, `POST
 * /ari/bridges/{id}/addChannel` (422 for a channel not in Stasis), `GET` / `DELETE /ari/bridges/{id}`, `GET
 * /ari/applications/{app}`. Errors are `{"message": ...}` with ARI's statuses; a channel that cannot be
 * made (the `invalid` behaviour, an unknown technology) is 500 `{"error": "Allocation failed"}`, as
 * Asterisk answers when `ast_dial_prerun` fails.
 *
 * Events: an application belongs to the WebSocket that registered it LAST (as in Asterisk): events of
 * its channels go there only. An originated channel reports `ChannelStateChange` (Ringing), then either
 * `ChannelDestroyed` with a Q.850 cause (busy 17, no answer 19 after the originate `timeout`, failure
 * 34), or `ChannelStateChange` (Up) and `StasisStart` (with the `appArgs` as `args`) once answered,
 * and at the end `ChannelHangupRequest`, `StasisEnd`, `ChannelDestroyed` (16 Normal Clearing). An
 * inbound call is a channel entering `Stasis(app)` from the dialplan: `StasisStart` in state `Ring`,
 * with the dialed extension in `channel.dialplan.exten`.
 */
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type * as Net from "node:net"
import { WebSocketServer } from "ws"
import * as FakeAsterisk from "./FakeAsterisk.js"
import type { Behaviour, FakeChannel } from "./FakeAsterisk.js"
import * as FakeAriRest from "./FakeAriRest.js"

export type { Behaviour, FakeChannel, FinalStatus } from "./FakeAsterisk.js"
export { numberOf } from "./FakeAriRest.js"

export interface FakeAriOptions {
  readonly user: string
  readonly password: string
  /** Real milliseconds per Asterisk second. */
  readonly secondMillis: number
  /** websocket_client.conf: connection name → URI. */
  readonly websocketClients?: Readonly<Record<string, string>>
}

export interface FakeAri {
  /** The `ari_endpoint` of a configuration (`http://127.0.0.1:<port>`). */
  readonly url: string
  readonly behave: (number: string, behaviour: Behaviour) => void
  /** The next `count` REST requests (those `match` selects) answer `status`. */
  readonly failNext: (status: number, count: number, match?: RegExp) => void
  readonly websocketClient: (name: string, uri: string) => void
  readonly channel: (id: string) => FakeChannel | undefined
  /** The ids of the channels originated to `number`. */
  readonly channelsTo: (number: string) => ReadonlyArray<string>
  /** The channels originated with `originator` = `id` (a transfer of that call), in order. */
  readonly originatedFor: (id: string) => ReadonlyArray<FakeChannel>
  /** The other channels in a bridge with `id` now. */
  readonly bridgedWith: (id: string) => ReadonlyArray<string>
  /** Events WebSockets currently open, per application. */
  readonly eventSockets: (app: string) => number
  /** A call from `from` to extension `to` enters `Stasis(app)`. */
  readonly placeInbound: (input: { readonly app: string; readonly to: string; readonly from: string }) => FakeChannel
  /** Drops every events WebSocket (Asterisk restarting): the application must reconnect. */
  readonly dropEventSockets: () => void
  readonly close: () => Promise<void>
}

export const start = (options: FakeAriOptions): Promise<FakeAri> =>
  new Promise((resolveStarted) => {
    const asterisk = FakeAsterisk.make(options)
    const { behaviours, channels, clients, clock, debug, emit, isoStamp, makeChannel, sockets } = asterisk
    const failures: Array<FakeAriRest.Failure> = []
    const authorization = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString("base64")}`
    const authorized = (request: Http.IncomingMessage, url: URL) =>
      request.headers.authorization === authorization || url.searchParams.get("api_key") === `${options.user}:${options.password}`
    const handle = FakeAriRest.handler(asterisk, { authorized, failures })

    const server = Http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (c: Buffer) => chunks.push(c))
      request.on("end", () => handle(request, response, Buffer.concat(chunks).toString("utf8")))
    })

    // ---------------------------------------------------------------------------------------- events

    const events = new WebSocketServer({ noServer: true })
    server.on("upgrade", (request, socket: Net.Socket, head) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1")
      const refuse = (status: number, text: string) => {
        socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)
      }
      if (url.pathname !== "/ari/events") return refuse(404, "Not Found")
      if (!authorized(request, url)) return refuse(401, "Unauthorized")
      const apps = (url.searchParams.get("app") ?? "").split(",").filter((a) => a !== "")
      if (apps.length === 0) return refuse(400, "Bad Request")
      events.handleUpgrade(request, socket, head, (ws) => {
        for (const app of apps) {
          // The application moves to this WebSocket; the one that had it is told so.
          const previous = sockets.get(app)?.at(-1)
          if (previous !== undefined && previous.readyState === previous.OPEN) {
            previous.send(JSON.stringify({ type: "ApplicationReplaced", application: app, timestamp: isoStamp(clock()), asterisk_id: "fa:ke:as:te:ri:sk" }))
          }
          sockets.set(app, [...(sockets.get(app) ?? []), ws])
        }
        ws.on("close", () => {
          for (const app of apps) sockets.set(app, (sockets.get(app) ?? []).filter((s) => s !== ws))
        })
      })
    })

    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as Net.AddressInfo).port
      resolveStarted({
        url: `http://127.0.0.1:${port}`,
        behave: (number, behaviour) => void behaviours.set(number, behaviour),
        failNext: (status, count, match) => void failures.push({ status, count, match }),
        websocketClient: (name, uri) => void clients.set(name, uri),
        channel: (id) => channels.get(id),
        channelsTo: (number) => [...channels.values()].filter((c) => c.number === number).map((c) => c.id),
        originatedFor: (id) => [...channels.values()].filter((c) => c.originator === id),
        bridgedWith: (id) => [...asterisk.bridges.values()].filter((b) => b.channels.has(id)).flatMap((b) => [...b.channels].filter((c) => c !== id)),
        eventSockets: (app) => (sockets.get(app) ?? []).length,
        placeInbound: ({ app, from, to }): FakeChannel => {
          const channel = makeChannel({
            id: `${(clock() / 1000).toFixed(3)}-${Crypto.randomBytes(4).toString("hex")}`,
            app,
            endpoint: from,
            number: to,
            args: [],
            direction: "inbound",
            state: "Ring"
          })
          channel.inStasis = true
          emit(channel, "StasisStart", { args: [] })
          return channel
        },
        dropEventSockets: () => {
          for (const list of sockets.values()) for (const ws of list) ws.terminate()
        },
        close: () =>
          new Promise<void>((resolve) => {
            debug("shutting down")
            for (const channel of channels.values()) {
              channel.timers.forEach(clearTimeout)
              channel.mediaLeg?.close()
            }
            for (const list of sockets.values()) for (const ws of list) ws.terminate()
            events.close()
            server.closeAllConnections()
            server.close(() => resolve())
          })
      })
    })
  })
