/**
 * Routes that telephony providers call, next to the API but not part of it: their callers are
 * carriers, which send form posts or JSON of their own shape, expect their own documents back (TwiML,
 * XML, NCCO) or a WebSocket, and authenticate with signatures rather than API keys. They are not in the
 * OpenAPI document (a typed client has no business calling them).
 *
 * - `POST /api/v1/telephony/answer/:provider/:attempt_id`: what to do once a call of ours is answered;
 * - `POST /api/v1/telephony/inbound/:provider`: a provider's voice webhook for an incoming call (the
 *   URL `provider_sync` points numbers at); always a document the caller can hear, 401 for a request
 *   that does not verify. `GET` too: Exotel's applets ask their URL with a GET, the call's details in
 *   the query;
 * - `GET /api/v1/telephony/media/:provider/:token` (WebSocket): an answered call's audio, opened by a
 *   single-use media token; a wrong, reused or expired token is refused (403) before the upgrade.
 *   `GET /api/v1/telephony/media/:provider?token=...` is the same for providers that dial a fixed URI
 *   and can only append query parameters (Asterisk's chan_websocket: websocket_client.conf's `uri`
 *   plus the call's `v(token=...)`).
 * - `POST|GET /api/v1/telephony/transfer-result/:transfer_id`: how a transfer to a person went, as the
 *   provider reports it (Twilio's and Plivo's `<Dial action>`, status callbacks of the new leg); the
 *   answer is the provider's document for what the call does next (`docs/transfer.md`).
 *
 * The provider's signature covers the full public URL it called (`AGENTLINE_PUBLIC_URL` + path and
 * query), so each request is verified against that, never against the path alone.
 */
import { CallAnswers } from "@agentline/core/calls/Answers"
import { InboundCalls } from "@agentline/core/calls/Inbound"
import { Transfers } from "@agentline/core/transfers/Transfers"
import { type MediaConnection, MediaStreams } from "@agentline/core/media/MediaStreams"
import type { WebSocketFrame } from "@agentline/telephony-kit/Media"
import type { WebhookRequest, WebhookResponse } from "@agentline/telephony-kit/TelephonyProvider"
import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse, Socket } from "@effect/platform"
import { Effect, Fiber, Layer, Queue } from "effect"
import { IncomingMessage } from "node:http"
import { publicRequestUrl } from "../calls/Http.js"
import { ServerConfig } from "../ServerConfig.js"

/** The request as the port sees it: full public URL, headers, raw body. */
export const webhookRequest = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { publicUrl } = yield* ServerConfig
  const body = new Uint8Array(yield* request.arrayBuffer.pipe(Effect.orDie))
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(request.headers)) if (typeof v === "string") headers[k] = v
  return { method: request.method, url: publicRequestUrl(publicUrl, request.url), headers, rawBody: body } satisfies WebhookRequest
})

export const respond = (response: WebhookResponse) =>
  HttpServerResponse.text(response.body, { status: response.status, contentType: response.contentType })

const detail = (status: number, message: string) => HttpServerResponse.unsafeJson({ detail: message }, { status })

const attemptIdOf = (value: string | undefined) => (value !== undefined && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : undefined)

const answerRoute = Effect.gen(function*() {
  const answers = yield* CallAnswers
  const params = yield* HttpRouter.params
  const attemptId = attemptIdOf(params.attempt_id)
  if (attemptId === undefined || params.provider === undefined) return detail(404, "Unknown call")
  const request = yield* webhookRequest
  return yield* answers.answer(params.provider, attemptId, request).pipe(
    Effect.map(respond),
    Effect.catchTags({
      UnknownCall: (e) => Effect.succeed(detail(404, e.message)),
      InvalidCallbackSignature: (e) => Effect.succeed(detail(401, e.message))
    })
  )
})

const inboundRoute = Effect.gen(function*() {
  const inbound = yield* InboundCalls
  const params = yield* HttpRouter.params
  if (params.provider === undefined) return detail(404, "Unknown provider")
  const request = yield* webhookRequest
  return yield* inbound.receive(params.provider, request).pipe(
    Effect.map(respond),
    Effect.catchTags({
      UnknownCall: () => Effect.succeed(detail(404, "Unknown provider")),
      InvalidCallbackSignature: (e) => Effect.succeed(detail(401, e.message))
    })
  )
})

const transferResultRoute = Effect.gen(function*() {
  const transfers = yield* Transfers
  const params = yield* HttpRouter.params
  const transferId = params.transfer_id
  if (transferId === undefined || transferId === "") return detail(404, "Unknown transfer")
  const request = yield* webhookRequest
  return yield* transfers.result(transferId, request).pipe(
    Effect.map(respond),
    Effect.catchTags({
      UnknownTransfer: (e) => Effect.succeed(detail(404, e.message)),
      InvalidCallbackSignature: (e) => Effect.succeed(detail(401, e.message))
    })
  )
})

/** A platform WebSocket as the media service sees it: frames in, frames out, close. */
export const connectionOf = (socket: Socket.Socket) =>
  Effect.gen(function*() {
    const write = yield* socket.writer
    const frames = yield* Queue.unbounded<WebSocketFrame | undefined>()
    // Set before the frames end: a socket the provider closed (Plivo ends a stream so) is not written
    // to again (a write waits for the socket to be open, which it never is again).
    let open = true
    // Not awaited when the connection's scope closes, only told to stop: the handshake happens in this
    // fiber, and `ws` never completes the upgrade of a socket that closed meanwhile, in a wait the
    // platform does not let anyone interrupt. Awaiting it would hold this request, and the server's
    // shutdown, for ever (`mediaRoute` refuses such sockets first; this covers what slips between).
    // The handler answers synchronously (no effect): the platform would fork a fiber per message for an
    // effect, 50 a second per call.
    const reader = yield* Effect.forkDaemon(
      socket.runRaw((data) => {
        frames.unsafeOffer(typeof data === "string" ? { _tag: "Text", text: data } : { _tag: "Binary", data })
      }).pipe(Effect.ignore, Effect.ensuring(Effect.zipRight(Effect.sync(() => (open = false)), frames.offer(undefined))))
    )
    yield* Effect.addFinalizer(() => Fiber.interruptFork(reader))
    const ifOpen = (effect: Effect.Effect<void, unknown>) => Effect.suspend(() => (open ? Effect.ignore(effect) : Effect.void))
    return {
      frames,
      send: (frame) => ifOpen(write(frame._tag === "Text" ? frame.text : frame.data)),
      close: ifOpen(write(new Socket.CloseEvent(1000)))
    } satisfies MediaConnection
  })

const mediaRoute = Effect.gen(function*() {
  const streams = yield* MediaStreams
  const params = yield* HttpRouter.params
  const token = params.token ?? (yield* HttpServerRequest.ParsedSearchParams).token
  if (params.provider === undefined || typeof token !== "string" || token === "") return detail(403, "Invalid media stream token")
  const call = yield* streams.open(params.provider, token)
  if (call._tag === "None") return detail(403, "Invalid media stream token")
  return yield* serveWebSocket("A media stream is a WebSocket", (connection) => streams.serve(call.value, connection))
})

/**
 * The current request upgraded to a WebSocket and served by `serve` until it ends (a media stream, a
 * web call). A client that gave up while its token was checked gets nothing: `ws` would never answer
 * the upgrade of a connection that is closing (see `connectionOf`). A request that is no upgrade: 426.
 */
export const serveWebSocket = <R>(notWebSocket: string, serve: (connection: MediaConnection) => Effect.Effect<void, never, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const connection = request.source instanceof IncomingMessage ? request.source.socket : undefined
    if (connection !== undefined && (connection.destroyed || !connection.readable || !connection.writable)) {
      return HttpServerResponse.empty({ status: 499 })
    }
    const socket = yield* request.upgrade.pipe(Effect.option)
    if (socket._tag === "None") return detail(426, notWebSocket)
    yield* Effect.scoped(Effect.flatMap(connectionOf(socket.value), serve))
    return HttpServerResponse.empty()
  })

/** The provider-facing routes, added to the API's router. */
export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<CallAnswers | InboundCalls | MediaStreams | ServerConfig | Transfers>()
    yield* router.post("/api/v1/telephony/answer/:provider/:attempt_id", Effect.provide(answerRoute, context))
    yield* router.post("/api/v1/telephony/inbound/:provider", Effect.provide(inboundRoute, context))
    yield* router.get("/api/v1/telephony/inbound/:provider", Effect.provide(inboundRoute, context))
    yield* router.get("/api/v1/telephony/media/:provider/:token", Effect.provide(mediaRoute, context))
    yield* router.get("/api/v1/telephony/media/:provider", Effect.provide(mediaRoute, context))
    yield* router.post("/api/v1/telephony/transfer-result/:transfer_id", Effect.provide(transferResultRoute, context))
    yield* router.get("/api/v1/telephony/transfer-result/:transfer_id", Effect.provide(transferResultRoute, context))
  })
).pipe(Layer.provide([CallAnswers.Default, InboundCalls.Default]))
