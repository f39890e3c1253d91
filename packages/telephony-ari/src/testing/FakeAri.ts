/**
 * A fake Asterisk for tests, on 127.0.0.1: the ARI REST API (HTTP Basic with an ari.conf user), the
 * events WebSocket (`/ari/events?app=...`), and chan_websocket channels that dial the application's
 * media endpoint (`FakeChanWebsocket`). Calls play out on a clock scaled by `secondMillis` (real
 * milliseconds per Asterisk second); event timestamps are written on that clock, as Asterisk writes its
 * own.
 *
 * REST: `POST /ari/channels` (originate into a Stasis app: `endpoint`, `app`, `appArgs`, `channelId`,
 * `callerId`, `timeout`, as query parameters or a JSON body), `GET` / `DELETE /ari/channels/{id}`,
 * `POST /ari/channels/externalMedia` (`transport=websocket`, `encapsulation=none`, `external_host=<a
 * websocket client>`, `format`, `transport_data=v(...)`), `POST /ari/bridges`, `POST
 * /ari/bridges/{id}/addChannel` (422 for a channel not in Stasis), `DELETE /ari/bridges/{id}`, `GET
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
import { WebSocketServer, type WebSocket } from "ws"
import * as ChanWebsocket from "./FakeChanWebsocket.js"

export interface Behaviour {
  readonly answer: "human" | "busy" | "no-answer" | "failed" | "invalid"
  /** Asterisk seconds the callee talks before hanging up (default 5). */
  readonly talkSeconds?: number
  /** Asterisk seconds of ringing before an answer or a busy/failure (default 2). */
  readonly ringSeconds?: number
}

export interface FakeAriOptions {
  readonly user: string
  readonly password: string
  /** Real milliseconds per Asterisk second. */
  readonly secondMillis: number
  /** websocket_client.conf: connection name → URI. */
  readonly websocketClients?: Readonly<Record<string, string>>
}

type Json = Record<string, unknown>

export type FinalStatus = "completed" | "busy" | "no_answer" | "failed" | "canceled"

export interface FakeChannel {
  readonly id: string
  readonly app: string
  readonly endpoint: string
  readonly number: string
  readonly args: ReadonlyArray<string>
  readonly direction: "outbound" | "inbound"
  state: string
  inStasis: boolean
  destroyed: boolean
  /** The events sent about this channel, in order. */
  readonly events: Array<Json>
  /** Resolves with how the channel ended, once every event of it was sent. */
  readonly ended: Promise<FinalStatus>
  /**
   * What the application did with an incoming channel: answered it, or hung it up (`reason` as the
   * DELETE named it), or the far end went first (`gone`).
   */
  readonly fate: Promise<{ readonly _tag: "Answered" } | { readonly _tag: "HungUp"; readonly reason: string } | { readonly _tag: "Gone" }>
  /** Resolves once its externalMedia channel's WebSocket is connected. */
  readonly mediaConnected: Promise<ChanWebsocket.MediaLeg>
  /** Sends again the events `keep` selects, in order or reversed; waits a moment for them to be read. */
  readonly resend: (order: "same" | "reverse", keep: (event: Json) => boolean) => Promise<ReadonlyArray<number>>
  /** The far end hangs up. */
  readonly hangUp: (cause?: number, causeText?: string) => void
}

interface Channel extends FakeChannel {
  timers: Array<NodeJS.Timeout>
  answered: boolean
  final: FinalStatus | undefined
  finish: (status: FinalStatus) => void
  connectMedia: (leg: ChanWebsocket.MediaLeg) => void
  decide: (fate: Awaited<FakeChannel["fate"]>) => void
  media?: { readonly leg: Promise<ChanWebsocket.MediaLeg>; readonly parent: string }
  mediaLeg?: ChanWebsocket.MediaLeg
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
  /** Events WebSockets currently open, per application. */
  readonly eventSockets: (app: string) => number
  /** A call from `from` to extension `to` enters `Stasis(app)`. */
  readonly placeInbound: (input: { readonly app: string; readonly to: string; readonly from: string }) => FakeChannel
  /** Drops every events WebSocket (Asterisk restarting): the application must reconnect. */
  readonly dropEventSockets: () => void
  readonly close: () => Promise<void>
}

const isoStamp = (millis: number) => new Date(millis).toISOString().replace("Z", "+0000")

/** The number a dial string reaches: `PJSIP/+1415...@trunk`, `Local/1415...@from-internal`, `PJSIP/trunk/sip:+1...@host`. */
export const numberOf = (endpoint: string) => {
  const resource = endpoint.slice(endpoint.indexOf("/") + 1)
  const sip = /sip:([^@;]+)/.exec(resource)
  return (sip !== null ? sip[1]! : resource.split("@")[0]!.split("/").at(-1)!).trim()
}

export const start = (options: FakeAriOptions): Promise<FakeAri> =>
  new Promise((resolveStarted) => {
    const realStart = Date.now()
    const epoch = Date.UTC(2025, 0, 1)
    /** Asterisk's clock, scaled. */
    const clock = () => epoch + ((Date.now() - realStart) * 1000) / options.secondMillis
    const later = (seconds: number) => seconds * options.secondMillis
    const behaviours = new Map<string, Behaviour>()
    const channels = new Map<string, Channel>()
    const bridges = new Map<string, { id: string; channels: Set<string> }>()
    const clients = new Map<string, string>(Object.entries(options.websocketClients ?? {}))
    const failures: Array<{ status: number; count: number; match: RegExp | undefined }> = []
    /** App → the sockets registered for it, the last one owning it. */
    const sockets = new Map<string, Array<WebSocket>>()
    const authorization = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString("base64")}`

    const authorized = (request: Http.IncomingMessage, url: URL) =>
      request.headers.authorization === authorization || url.searchParams.get("api_key") === `${options.user}:${options.password}`

    const snapshot = (channel: Channel) => ({
      id: channel.id,
      name: channel.direction === "outbound" ? `${channel.endpoint.split("@")[0]}-${channel.id.slice(-8)}` : `PJSIP/caller-${channel.id.slice(-8)}`,
      state: channel.state,
      caller: { name: "", number: channel.direction === "inbound" ? channel.endpoint : "" },
      connected: { name: "", number: "" },
      accountcode: "",
      dialplan: { context: "from-internal", exten: channel.direction === "inbound" ? channel.number : "s", priority: 1, app_name: "Stasis", app_data: channel.app },
      creationtime: isoStamp(clock()),
      language: "en"
    })

    const emit = (channel: Channel, type: string, extra: Json = {}, record = true) => {
      const event: Json = { type, timestamp: isoStamp(clock()), application: channel.app, asterisk_id: "fa:ke:as:te:ri:sk", ...extra, channel: snapshot(channel) }
      if (record) channel.events.push(event)
      send(channel.app, event)
    }
    const debug = process.env.AGENTLINE_FAKE_ARI_DEBUG === "1" ? (...a: Array<unknown>) => console.error("[fake-ari]", Date.now() % 100000, ...a) : () => undefined
    const send = (app: string, event: Json) => {
      debug("event", event.type, (event.channel as any)?.id, (event.channel as any)?.state, sockets.get(app)?.length)
      const owner = sockets.get(app)?.at(-1)
      if (owner !== undefined && owner.readyState === owner.OPEN) owner.send(JSON.stringify(event))
    }

    const destroy = (channel: Channel, cause: number, causeText: string, status: FinalStatus) => {
      if (channel.destroyed) return
      channel.timers.forEach(clearTimeout)
      channel.destroyed = true
      if (channel.inStasis) {
        emit(channel, "ChannelHangupRequest", { cause })
        channel.inStasis = false
        emit(channel, "StasisEnd")
      }
      channel.state = "Down"
      emit(channel, "ChannelDestroyed", { cause, cause_txt: causeText })
      for (const bridge of bridges.values()) bridge.channels.delete(channel.id)
      // A media connection still being made is closed once it opens (see externalMedia below).
      channel.mediaLeg?.close()
      channel.decide({ _tag: "Gone" })
      channel.finish(status)
    }

    const makeChannel = (input: { id: string; app: string; endpoint: string; number: string; args: ReadonlyArray<string>; direction: "outbound" | "inbound"; state: string }) => {
      let finish!: (status: FinalStatus) => void
      const ended = new Promise<FinalStatus>((resolve) => (finish = resolve))
      let decide!: Channel["decide"]
      const fate = new Promise<Awaited<FakeChannel["fate"]>>((resolve) => (decide = resolve))
      let connectMedia!: (leg: ChanWebsocket.MediaLeg) => void
      const mediaConnected = new Promise<ChanWebsocket.MediaLeg>((resolve) => (connectMedia = resolve))
      const channel: Channel = {
        ...input,
        inStasis: false,
        destroyed: false,
        events: [],
        ended,
        fate,
        decide,
        mediaConnected,
        timers: [],
        answered: false,
        final: undefined,
        finish: (status) => {
          channel.final = status
          finish(status)
        },
        connectMedia,
        resend: async (order, keep) => {
          const events = channel.events.filter(keep)
          for (const event of order === "same" ? events : [...events].reverse()) send(channel.app, event)
          // Asterisk does not acknowledge events: give the application a moment to read them.
          await new Promise((resolve) => setTimeout(resolve, 300))
          return events.map(() => 200)
        },
        hangUp: (cause = 16, causeText = "Normal Clearing") => destroy(channel, cause, causeText, channel.answered ? "completed" : "canceled")
      }
      channels.set(channel.id, channel)
      return channel
    }

    const answer = (channel: Channel, talkSeconds: number) => {
      channel.answered = true
      channel.state = "Up"
      emit(channel, "ChannelStateChange")
      channel.inStasis = true
      emit(channel, "StasisStart", { args: channel.args })
      channel.timers.push(setTimeout(() => destroy(channel, 16, "Normal Clearing", "completed"), later(talkSeconds)))
    }

    const play = (channel: Channel, behaviour: Behaviour, timeoutSeconds: number) => {
      const ring = behaviour.ringSeconds ?? 2
      channel.timers.push(setTimeout(() => {
        channel.state = "Ringing"
        emit(channel, "ChannelStateChange")
        switch (behaviour.answer) {
          case "human":
            channel.timers.push(setTimeout(() => answer(channel, behaviour.talkSeconds ?? 5), later(ring)))
            break
          case "busy":
            channel.timers.push(setTimeout(() => destroy(channel, 17, "User busy", "busy"), later(ring)))
            break
          case "failed":
            channel.timers.push(setTimeout(() => destroy(channel, 34, "Circuit/channel congestion", "failed"), later(ring / 2)))
            break
          case "no-answer":
            channel.timers.push(setTimeout(() => destroy(channel, 19, "No answer", "no_answer"), later(timeoutSeconds)))
            break
          case "invalid":
            break
        }
      }, later(0.25)))
    }

    // ------------------------------------------------------------------------------------------ REST

    const reply = (response: Http.ServerResponse, status: number, body?: unknown) => {
      if (body === undefined) {
        response.writeHead(status).end()
      } else {
        response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
      }
    }

    const handle = (request: Http.IncomingMessage, response: Http.ServerResponse, raw: string) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1")
      const path = url.pathname
      if (!path.startsWith("/ari/")) return reply(response, 404, { message: "Not found" })
      if (!authorized(request, url)) {
        response.writeHead(401, { "www-authenticate": 'Basic realm="Asterisk REST Interface"', "content-type": "application/json" })
        return response.end(JSON.stringify({ error: "Authentication required" }))
      }
      const failing = failures.find((f) => f.count > 0 && (f.match === undefined || f.match.test(path)))
      if (failing !== undefined) {
        failing.count--
        return reply(response, failing.status, { message: failing.status === 429 ? "Too many requests" : "Internal server error" })
      }
      let body: Json = {}
      try {
        body = raw.trim() === "" ? {} : JSON.parse(raw)
      } catch {
        return reply(response, 400, { message: "Request body is not valid JSON" })
      }
      const param = (name: string) => url.searchParams.get(name) ?? (typeof body[name] === "string" ? body[name] as string : undefined)
      const method = request.method ?? "GET"
      debug("rest", method, request.url)
      const segments = path.split("/").filter((s) => s !== "").slice(1).map(decodeURIComponent)

      if (segments[0] === "applications" && segments.length === 2 && method === "GET") {
        return reply(response, 200, { name: segments[1], channel_ids: [], bridge_ids: [], endpoint_ids: [], device_names: [], events_allowed: [], events_disallowed: [] })
      }

      if (segments[0] === "channels" && segments[1] === "externalMedia" && method === "POST") {
        const app = param("app")
        const format = param("format")
        const host = param("external_host")
        if (app === undefined || format === undefined) return reply(response, 400, { message: "app and format are required" })
        if (param("transport") !== "websocket" || param("encapsulation") !== "none") {
          return reply(response, 400, { message: "only transport=websocket with encapsulation=none is imitated" })
        }
        if (format !== "ulaw") return reply(response, 400, { message: `format ${format} is not imitated` })
        const uri = host === undefined ? undefined : clients.get(host)
        if (uri === undefined) return reply(response, 400, { message: `websocket_client '${host ?? ""}' not found` })
        const id = param("channelId") ?? `${Date.now() / 1000}.${channels.size}`
        if (channels.has(id)) return reply(response, 409, { message: "Channel with given unique ID already exists" })
        const parent = [...channels.values()].find((c) => `${c.id}-media` === id)
        const channel = makeChannel({ id, app, endpoint: `WebSocket/${host}`, number: host!, args: [], direction: "outbound", state: "Down" })
        const leg = ChanWebsocket.dial({
          uri,
          params: ChanWebsocket.uriParams(param("transport_data")),
          connectionId: host!,
          channelName: `WebSocket/${host}/0x${Crypto.randomBytes(6).toString("hex")}`,
          channelId: id,
          onHangup: () => destroy(channel, 16, "Normal Clearing", "completed")
        })
        channel.media = { leg, parent: parent?.id ?? "" }
        leg.then((opened) => {
          debug("media open", id, channel.destroyed)
          opened.closed.then(() => debug("media closed", id))
          channel.mediaLeg = opened
          if (channel.destroyed) return opened.close()
          opened.closed.then(() => destroy(channel, 16, "Normal Clearing", "completed"))
          channel.state = "Up"
          channel.inStasis = true
          emit(channel, "StasisStart", { args: [] })
          const owner = channels.get(parent?.id ?? "")
          if (owner !== undefined) owner.connectMedia(opened)
        }, (error) => {
          debug("media refused", id, String(error))
          destroy(channel, 38, "Network out of order", "failed")
        })
        return reply(response, 200, snapshot(channel))
      }

      if (segments[0] === "channels" && segments.length === 1 && method === "POST") {
        const endpoint = param("endpoint")
        const app = param("app")
        if (endpoint === undefined || endpoint === "") return reply(response, 400, { message: "Endpoint must be specified" })
        if (app === undefined) return reply(response, 400, { message: "Either extension or app must be specified" })
        const id = param("channelId") ?? `${Date.now() / 1000}.${channels.size}`
        if (channels.has(id)) return reply(response, 409, { message: "Channel with given unique ID already exists" })
        const number = numberOf(endpoint)
        const behaviour = behaviours.get(number) ?? behaviours.get(number.replace(/^\+/, "")) ?? behaviours.get(`+${number}`) ?? { answer: "human" }
        // A channel Asterisk cannot create (no such endpoint, an unknown technology): ast_dial_prerun
        // fails and ARI answers its out-of-memory body.
        if (behaviour.answer === "invalid" || !/^(PJSIP|SIP|IAX2|Local|DAHDI)\//.test(endpoint)) {
          return reply(response, 500, { error: "Allocation failed" })
        }
        const appArgs = param("appArgs")
        const channel = makeChannel({
          id,
          app,
          endpoint,
          number,
          args: appArgs === undefined || appArgs === "" ? [] : appArgs.split(","),
          direction: "outbound",
          state: "Down"
        })
        const timeout = Number(param("timeout") ?? "30")
        play(channel, behaviour, timeout > 0 ? timeout : 3600)
        return reply(response, 200, snapshot(channel))
      }

      if (segments[0] === "channels" && segments.length === 2) {
        const channel = channels.get(segments[1]!)
        if (channel === undefined || channel.destroyed) return reply(response, 404, { message: "Channel not found" })
        if (method === "GET") return reply(response, 200, snapshot(channel))
        if (method === "DELETE") {
          reply(response, 204)
          channel.decide({ _tag: "HungUp", reason: param("reason") ?? "normal" })
          const causes: Record<string, [number, string]> = { busy: [17, "User busy"], rejected: [21, "Call Rejected"], normal: [16, "Normal Clearing"] }
          if (channel.direction === "inbound") {
            const [cause, text] = causes[param("reason") ?? "normal"] ?? [16, "Normal Clearing"]
            return destroy(channel, cause, text, channel.answered ? "completed" : "canceled")
          }
          return destroy(channel, 16, "Normal Clearing", channel.answered || channel.endpoint.startsWith("WebSocket/") ? "completed" : "canceled")
        }
      }

      if (segments[0] === "channels" && segments.length === 3 && segments[2] === "answer" && method === "POST") {
        const channel = channels.get(segments[1]!)
        if (channel === undefined || channel.destroyed) return reply(response, 404, { message: "Channel not found" })
        channel.answered = true
        channel.state = "Up"
        emit(channel, "ChannelStateChange")
        channel.decide({ _tag: "Answered" })
        return reply(response, 204)
      }

      if (segments[0] === "bridges" && segments.length === 1 && method === "POST") {
        const id = param("bridgeId") ?? Crypto.randomUUID()
        if (bridges.has(id)) return reply(response, 409, { message: "Bridge with given unique ID already exists" })
        bridges.set(id, { id, channels: new Set() })
        return reply(response, 200, { id, technology: "simple_bridge", bridge_type: param("type") ?? "mixing", bridge_class: "stasis", channels: [] })
      }
      if (segments[0] === "bridges" && segments.length === 2 && method === "DELETE") {
        if (!bridges.delete(segments[1]!)) return reply(response, 404, { message: "Bridge not found" })
        return reply(response, 204)
      }
      if (segments[0] === "bridges" && segments.length === 3 && segments[2] === "addChannel" && method === "POST") {
        const bridge = bridges.get(segments[1]!)
        if (bridge === undefined) return reply(response, 404, { message: "Bridge not found" })
        const ids = (param("channel") ?? "").split(",").filter((s) => s !== "")
        if (ids.length === 0) return reply(response, 400, { message: "Missing parameter channel" })
        for (const id of ids) {
          const channel = channels.get(id)
          if (channel === undefined || channel.destroyed) return reply(response, 400, { message: `Channel ${id} not found` })
          if (!channel.inStasis) return reply(response, 422, { message: "Channel not in Stasis application" })
        }
        for (const id of ids) bridge.channels.add(id)
        return reply(response, 204)
      }
      return reply(response, 404, { message: "Resource not found" })
    }

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
        eventSockets: (app) => (sockets.get(app) ?? []).length,
        placeInbound: ({ app, from, to }) => {
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
