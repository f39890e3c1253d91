/**
 * A stand-in for Agentline's side of a call, so an adapter runs its contract against its fake carrier
 * without the whole server: it places calls through the adapter and serves, at the server's own paths,
 * what a carrier calls back —
 *
 *   POST      /api/v1/telephony/callbacks/{provider}/{attempt}   verify (401), parseStatus (422), events
 *   POST|GET  /api/v1/telephony/answer/{provider}/{attempt}      verify, events, the answer document
 *   POST|GET  /api/v1/telephony/inbound/{provider}               parseInbound, routing, verify, instructCall, answer
 *   GET (WS)  /api/v1/telephony/media/{provider}/{token}         the media codec (also `?token=`), single use
 *   POST|GET  /api/v1/telephony/transfer-result/{transfer_id}    a transfer's result (`HostTransfers.ts`)
 *
 * — and holds what the configuration keeps open (`connect`), handing its in-process incoming calls to
 * the inbound route. It applies events as Agentline's dispatcher does: everything up to a call's first
 * `ended` counts, what comes after is recorded as late and changes nothing. A call answered by a
 * machine, or already over, is answered with a hang-up; an incoming call to a number not bound here, or
 * of another account, is refused in the provider's words.
 */
import { Effect, Option, Runtime, Schema, Scope } from "effect"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { WebSocket, WebSocketServer } from "ws"
import type { MediaCommand, MediaEvent, MediaSession, WebSocketFrame } from "../Media.js"
import type {
  CallEvent,
  CallInstruction,
  InboundCall,
  TelephonyError,
  TelephonyProvider,
  WebhookRequest,
  WebhookResponse
} from "../TelephonyProvider.js"
import * as HostTransfers from "./HostTransfers.js"

type WhenAnswered = Exclude<CallInstruction, { readonly _tag: "Reject" }>
type Start = Extract<MediaEvent, { readonly _tag: "Start" }>

/** One call attempt as the stand-in keeps it. */
export interface HostedCall {
  readonly attemptId: number
  readonly direction: "outbound" | "inbound"
  readonly config: unknown
  providerCallId: string | undefined
  /** The events that counted, in order: everything up to the first `ended`, and it. */
  readonly events: Array<CallEvent>
  /** Events that came after the end: recorded, changing nothing. */
  readonly late: Array<CallEvent>
  /** The requests of the call's callback and answer routes, and what they were answered. */
  readonly requests: Array<{ readonly route: "callback" | "answer"; readonly status: number }>
  /** The call's media streams, in the order they connected. */
  readonly media: Array<HostedMedia>
}

/** One media stream connection, through the adapter's codec. */
export interface HostedMedia {
  readonly call: HostedCall
  /** Everything the codec decoded, in order. */
  readonly events: Array<MediaEvent>
  readonly start: () => Start | undefined
  /** Sends a command through the codec. */
  readonly send: (command: MediaCommand) => Effect.Effect<void, TelephonyError>
  /** Closes the socket from this side. */
  readonly close: () => void
  readonly isOpen: () => boolean
}

/** An incoming call as the inbound route saw it. */
export interface HostedInbound {
  readonly call: InboundCall | undefined
  /** The HTTP status answered. */
  readonly status: number
  readonly instruction: CallInstruction | undefined
  readonly attempt: HostedCall | undefined
}

export type InboundAnswer = "stream" | "busy" | "refuse"

export interface ContractHost {
  /** The stand-in's public URL (`http://127.0.0.1:<port>`). */
  readonly url: string
  /** Where numbers' voice webhooks point: `<url>/api/v1/telephony/inbound/<provider>`. */
  readonly inboundUrl: string
  /** Serves `adapter` with `config` (decoded); opens what the configuration keeps open. */
  readonly serve: (adapter: TelephonyProvider, config: unknown) => Effect.Effect<void, TelephonyError>
  /** Places a call through the adapter, as the dispatcher does. */
  readonly place: (input: {
    readonly to: string
    readonly from: string | undefined
    /** Default: the served configuration. */
    readonly config?: unknown
    /** `stream` (default): connect a media stream once answered; `keep-open`: no voice runtime. */
    readonly whenAnswered?: "stream" | "keep-open"
  }) => Effect.Effect<HostedCall, TelephonyError>
  readonly calls: () => ReadonlyArray<HostedCall>
  readonly callOf: (providerCallId: string) => HostedCall | undefined
  /** Numbers bound to an agent here: incoming calls to others are refused. */
  readonly numbers: Set<string>
  /** What an incoming call to a bound number gets (default `stream`). */
  inboundAnswer: InboundAnswer
  readonly inbound: Array<HostedInbound>
  /** Transfers a call through the adapter, as the server does; its results as the server's route gets them. */
  readonly transfer: (input: HostTransfers.TransferInput) => Effect.Effect<HostTransfers.HostedTransfer, TelephonyError>
}

/** The routing form of an address: `+` and digits for a phone number, anything else as given. */
export const routingAddress = (address: string): string => {
  const trimmed = address.trim()
  return /^\+?[\d\s().-]+$/.test(trimmed) ? `+${trimmed.replace(/\D/g, "")}` : trimmed
}

const REFUSED = "Sorry, this number cannot take your call right now. Goodbye."
const BUSY: CallInstruction = { _tag: "Reject", reason: "All our lines are busy. Please call again later.", busy: true }

/** The stand-in, listening on 127.0.0.1; it stops with the scope. */
export const make: Effect.Effect<ContractHost, never, Scope.Scope> = Effect.gen(function*() {
  const runtime = yield* Effect.runtime<never>()
  const run = Runtime.runPromise(runtime)
  const scope = yield* Effect.scope
  const calls: Array<HostedCall> = []
  const tokens = new Map<string, HostedCall>()
  const connected = new Map<string, true>()
  let served: { readonly adapter: TelephonyProvider; readonly config: unknown } | undefined
  let nextAttempt = 1

  const server = Http.createServer()
  yield* Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void)))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const sockets = new WebSocketServer({ noServer: true })
  yield* Effect.addFinalizer(() =>
    Effect.async<void>((resume) => {
      for (const client of sockets.clients) client.terminate()
      sockets.close()
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
  )

  const adapterOf = () => {
    if (served === undefined) throw new Error("the contract host serves no adapter yet")
    return served
  }
  const provider = () => adapterOf().adapter.name
  const transfers = HostTransfers.make(url, adapterOf)
  const callbackUrl = (attemptId: number) => `${url}/api/v1/telephony/callbacks/${provider()}/${attemptId}`
  const mediaUrl = (token: string) => `${url.replace(/^http/, "ws")}/api/v1/telephony/media/${provider()}/${token}`

  const newCall = (direction: HostedCall["direction"], config: unknown, providerCallId?: string): HostedCall => {
    const call: HostedCall = { attemptId: nextAttempt++, direction, config, providerCallId, events: [], late: [], requests: [], media: [] }
    calls.push(call)
    return call
  }

  /** What a call does once answered: a fresh single-use media URL each time it is asked. */
  const whenAnswered = (call: HostedCall, mode: "stream" | "keep-open"): WhenAnswered => {
    if (mode === "keep-open" || adapterOf().adapter.media === undefined) return { _tag: "KeepOpen" }
    const token = Crypto.randomBytes(32).toString("base64url")
    tokens.set(token, call)
    return { _tag: "ConnectMediaStream", url: mediaUrl(token), parameters: { attempt_id: String(call.attemptId) } }
  }
  const modes = new Map<number, "stream" | "keep-open">()

  /** The dispatcher's rule: events count until the first `ended`; later ones are recorded, and ignored. */
  const apply = (call: HostedCall, event: CallEvent) =>
    Effect.sync(() => {
      if (call.providerCallId === undefined) call.providerCallId = event.providerCallId
      if (call.events.some((e) => e.type === "ended")) call.late.push(event)
      else call.events.push(event)
    })

  const isOpen = (call: HostedCall) => !call.events.some((e) => e.type === "ended")

  const open = (config: unknown) =>
    Effect.gen(function*() {
      const { adapter } = adapterOf()
      if (adapter.connect === undefined) return
      const key = adapter.connectionKey?.(config) ?? JSON.stringify(config)
      if (connected.has(key)) return
      yield* Scope.extend(adapter.connect(config, { inbound: (request) => Effect.map(inbound(request), Option.some) }), scope)
      connected.set(key, true)
    })

  const place: ContractHost["place"] = (input) =>
    Effect.gen(function*() {
      const { adapter, config: servedConfig } = adapterOf()
      const calling = adapter.calls
      if (calling === undefined) return yield* Effect.dieMessage(`${adapter.name} places no calls`)
      const config = input.config ?? servedConfig
      yield* open(config)
      const call = newCall("outbound", config)
      const mode = input.whenAnswered ?? "stream"
      modes.set(call.attemptId, mode)
      const placed = yield* calling.place({
        config,
        to: input.to,
        from: input.from,
        attemptId: call.attemptId,
        callbackUrl: callbackUrl(call.attemptId),
        answerUrl: `${url}/api/v1/telephony/answer/${adapter.name}/${call.attemptId}`,
        whenAnswered: whenAnswered(call, mode),
        onEvent: (event) => apply(call, event)
      })
      call.providerCallId = placed.providerCallId
      return call
    })

  // ------------------------------------------------------------------------------------------- routes

  const respond = (response: Http.ServerResponse, answer: WebhookResponse) => {
    response.writeHead(answer.status, { "content-type": answer.contentType })
    response.end(answer.body)
  }
  const detail = (status: number, text: string): WebhookResponse => ({
    status,
    contentType: "application/json",
    body: JSON.stringify({ detail: text })
  })

  const callback = (route: "callback" | "answer", attemptId: number, request: WebhookRequest) =>
    Effect.gen(function*() {
      const { adapter } = adapterOf()
      const call = calls.find((c) => c.attemptId === attemptId)
      const webhooks = adapter.webhooks
      if (call === undefined || webhooks === undefined) return detail(404, "Unknown call")
      const answered = (response: WebhookResponse) => {
        call.requests.push({ route, status: response.status })
        return response
      }
      if (!(yield* webhooks.verify({ config: call.config, request }))) return answered(detail(401, "Invalid signature"))
      const parsed = yield* Effect.either(webhooks.parseStatus({ config: call.config, request }))
      if (parsed._tag === "Left" && route === "callback") return answered(detail(422, parsed.left.message))
      const events = parsed._tag === "Right" ? parsed.right : []
      const wasOpen = isOpen(call)
      yield* Effect.forEach(events, (event) => apply(call, event), { discard: true })
      if (route === "callback") {
        return answered({ status: 200, contentType: "application/json", body: JSON.stringify({ ok: true, events: events.length }) })
      }
      const machine = events.some((e) => e.type === "answered" && (e.answeredBy === "machine" || e.answeredBy === "fax"))
      const instruction: CallInstruction = !wasOpen || !isOpen(call) || machine
        ? { _tag: "Reject", reason: "" }
        : whenAnswered(call, modes.get(call.attemptId) ?? "stream")
      return answered(webhooks.answer({ config: call.config, instruction }))
    })

  /** The inbound route, for an HTTP voice webhook and for a call announced over a held connection alike. */
  const inbound = (request: WebhookRequest): Effect.Effect<WebhookResponse> =>
    Effect.gen(function*() {
      const { adapter, config } = adapterOf()
      const webhooks = adapter.webhooks
      if (webhooks === undefined) return detail(404, "Unknown provider")
      const record = (entry: HostedInbound) => {
        host.inbound.push(entry)
        return entry
      }
      const refuse = (call: InboundCall | undefined, known: unknown, instruction: CallInstruction = { _tag: "Reject", reason: REFUSED }) =>
        Effect.gen(function*() {
          const answer = webhooks.answer({ config: known, instruction })
          record({ call, status: answer.status, instruction, attempt: undefined })
          if (known !== undefined && call !== undefined && webhooks.instructCall !== undefined) {
            yield* webhooks.instructCall({ config: known, providerCallId: call.providerCallId, instruction }).pipe(Effect.ignore)
          }
          return answer
        })
      const parsed = yield* Effect.either(webhooks.parseInbound({ request }))
      if (parsed._tag === "Left") return yield* refuse(undefined, undefined)
      const call = parsed.right
      if (call.accountId !== adapter.accountId(config) || !host.numbers.has(routingAddress(call.to))) return yield* refuse(call, undefined)
      if (!(yield* webhooks.verify({ config, request }))) {
        record({ call, status: 401, instruction: undefined, attempt: undefined })
        return detail(401, "Invalid signature")
      }
      if (host.inboundAnswer === "refuse") return yield* refuse(call, config)
      if (host.inboundAnswer === "busy") return yield* refuse(call, config, BUSY)
      const attempt = newCall("inbound", config, call.providerCallId)
      const instruction = whenAnswered(attempt, "stream")
      const answer = webhooks.answer({ config, instruction })
      // Recorded first: a provider acting on the command (Asterisk answering) may tell its caller at once.
      record({ call, status: answer.status, instruction, attempt })
      if (webhooks.instructCall !== undefined) {
        yield* webhooks.instructCall({
          config,
          providerCallId: call.providerCallId,
          instruction,
          callbackUrl: callbackUrl(attempt.attemptId),
          onEvent: (event) => apply(attempt, event)
        }).pipe(Effect.ignore)
      }
      return answer
    })

  const webhookRequest = (request: Http.IncomingMessage, body: Buffer): WebhookRequest => {
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(request.headers)) if (typeof v === "string") headers[k] = v
    return { method: request.method ?? "GET", url: `${url}${request.url ?? "/"}`, headers, rawBody: new Uint8Array(body) }
  }

  server.on("request", (request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const path = new URL(request.url ?? "/", url).pathname.split("/").filter((s) => s !== "")
      const [api, v1, telephony, kind, name, id] = path
      const webhook = webhookRequest(request, Buffer.concat(chunks))
      const answer = (effect: Effect.Effect<WebhookResponse>) =>
        run(effect).then((a) => respond(response, a), (e: unknown) => respond(response, detail(500, String(e))))
      if (kind === "transfer-result" && name !== undefined && served !== undefined) return void answer(transfers.route(name, webhook))
      if (api !== "api" || v1 !== "v1" || telephony !== "telephony" || served === undefined || name !== provider()) {
        return respond(response, detail(404, "Not found"))
      }
      const attemptId = Number(id)
      if ((kind === "callbacks" || kind === "answer") && Number.isInteger(attemptId)) {
        return void answer(callback(kind === "callbacks" ? "callback" : "answer", attemptId, webhook))
      }
      if (kind === "inbound" && id === undefined) return void answer(inbound(webhook))
      respond(response, detail(404, "Not found"))
    })
  })

  // ---------------------------------------------------------------------------------------------- media

  const serveMedia = (socket: WebSocket, call: HostedCall, session: MediaSession) => {
    const write = (frame: WebSocketFrame) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(frame._tag === "Text" ? frame.text : frame.data)
    }
    const media: HostedMedia = {
      call,
      events: [],
      start: () => media.events.find((e): e is Start => e._tag === "Start"),
      send: (command) => Effect.map(session.encode(command), (frames) => frames.forEach(write)),
      close: () => socket.close(1000),
      isOpen: () => socket.readyState === WebSocket.OPEN
    }
    call.media.push(media)
    // Frames are decoded one at a time, in arrival order.
    let reading: Promise<unknown> = Promise.resolve()
    socket.on("message", (raw, isBinary) => {
      const data = Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw)
      const frame: WebSocketFrame = isBinary
        ? { _tag: "Binary", data: new Uint8Array(data) }
        : { _tag: "Text", text: data.toString("utf8") }
      reading = reading.then(() =>
        run(
          session.decode(frame).pipe(
            Effect.map((events) => {
              media.events.push(...events)
              const start = events.find((e): e is Start => e._tag === "Start")
              if (start?.providerCallId !== undefined && call.providerCallId === undefined) call.providerCallId = start.providerCallId
            }),
            Effect.ignore
          )
        )
      )
    })
  }

  server.on("upgrade", (request: Http.IncomingMessage, socket, head) => {
    const parsed = new URL(request.url ?? "/", url)
    const path = parsed.pathname.split("/").filter((s) => s !== "")
    const token = path[5] ?? parsed.searchParams.get("token") ?? ""
    const call = tokens.get(token)
    const refuse = () => socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    if (served === undefined || path.slice(0, 4).join("/") !== "api/v1/telephony/media" || path[4] !== provider() || call === undefined) {
      return refuse()
    }
    const media = adapterOf().adapter.media
    if (media === undefined) return refuse()
    tokens.delete(token)
    sockets.handleUpgrade(request, socket, head, (ws) => {
      run(media.open).then((session) => serveMedia(ws, call, session), () => ws.terminate())
    })
  })

  const host: ContractHost = {
    url,
    get inboundUrl() {
      return `${url}/api/v1/telephony/inbound/${provider()}`
    },
    serve: (adapter, config) =>
      Effect.suspend(() => {
        served = { adapter, config }
        return open(config)
      }),
    place,
    calls: () => [...calls],
    callOf: (providerCallId) => calls.find((c) => c.providerCallId === providerCallId),
    numbers: new Set(),
    inboundAnswer: "stream",
    inbound: [],
    transfer: transfers.transfer
  }
  return host
})

/** `config` decoded by the adapter's schema, as the application decodes a stored configuration. */
export const decodeConfig = (adapter: TelephonyProvider, config: Record<string, unknown>): unknown =>
  Schema.decodeUnknownSync(adapter.configSchema)(config)
