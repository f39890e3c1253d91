/**
 * The fake's ARI REST API: channels (originate, look up, hang up, answer, externalMedia over
 * chan_websocket), bridges and applications, with ARI's statuses and `{"message": ...}` errors.
 */
import * as Crypto from "node:crypto"
import type * as Http from "node:http"
import type { Asterisk, Json } from "./FakeAsterisk.js"
import * as ChanWebsocket from "./FakeChanWebsocket.js"

/** The number a dial string reaches: `PJSIP/+1415...@trunk`, `Local/1415...@from-internal`, `PJSIP/trunk/sip:+1...@host`. */
export const numberOf = (endpoint: string) => {
  const resource = endpoint.slice(endpoint.indexOf("/") + 1)
  const sip = /sip:([^@;]+)/.exec(resource)
  return (sip !== null ? sip[1]! : resource.split("@")[0]!.split("/").at(-1)!).trim()
}

/** A REST request the test made fail on purpose (`FakeAri.failNext`). */
export interface Failure {
  readonly status: number
  count: number
  readonly match: RegExp | undefined
}

export const handler = (
  asterisk: Asterisk,
  input: { readonly authorized: (request: Http.IncomingMessage, url: URL) => boolean; readonly failures: Array<Failure> }
) => {
  const { authorized, failures } = input
  const { behaviours, bridges, channels, clients, debug, destroy, emit, makeChannel, play, snapshot } = asterisk
  const reply = (response: Http.ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) {
      response.writeHead(status).end()
    } else {
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
    }
  }

  return (request: Http.IncomingMessage, response: Http.ServerResponse, raw: string) => {
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
        state: "Down",
        originator: param("originator")
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

    if (segments[0] === "channels" && segments.length === 3 && segments[2] === "ring" && (method === "POST" || method === "DELETE")) {
      const channel = channels.get(segments[1]!)
      if (channel === undefined || channel.destroyed) return reply(response, 404, { message: "Channel not found" })
      if (!channel.inStasis) return reply(response, 409, { message: "Channel not in a Stasis application" })
      channel.ringing = method === "POST"
      return reply(response, 204)
    }

    if (segments[0] === "bridges" && segments.length === 1 && method === "POST") {
      const id = param("bridgeId") ?? Crypto.randomUUID()
      if (bridges.has(id)) return reply(response, 409, { message: "Bridge with given unique ID already exists" })
      bridges.set(id, { id, channels: new Set() })
      return reply(response, 200, { id, technology: "simple_bridge", bridge_type: param("type") ?? "mixing", bridge_class: "stasis", channels: [] })
    }
    if (segments[0] === "bridges" && segments.length === 2 && method === "GET") {
      const bridge = bridges.get(segments[1]!)
      if (bridge === undefined) return reply(response, 404, { message: "Bridge not found" })
      return reply(response, 200, { id: bridge.id, technology: "simple_bridge", bridge_type: "mixing", bridge_class: "stasis", channels: [...bridge.channels] })
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
}
