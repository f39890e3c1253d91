/**
 * A miniature of Agentline's side of a call, for testing an adapter against its fake carrier without
 * the whole server: it receives status callbacks (`/callbacks/{attempt}`), answer requests
 * (`/answer/{attempt}`) and inbound calls (`/inbound`), verifies them with the adapter, parses them
 * into events, answers with the adapter's documents, and serves the media WebSocket
 * (`/media/{attempt}`) through the adapter's codec with a loopback consumer: on `Start` it plays the
 * configured reply audio and a mark, and records every event it decodes.
 *
 * A callback that does not verify gets 403 and is recorded as refused.
 */
import type { MediaCommand, MediaEvent, ProviderMedia } from "@agentline/telephony-kit/Media"
import type { CallEvent, CallInstruction, ProviderWebhooks, WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { HttpServerRequest, HttpServerResponse, Socket } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, type Scope } from "effect"
import * as Http from "node:http"

export interface Adapter<Config> {
  readonly webhooks: ProviderWebhooks<Config>
  readonly media: ProviderMedia
}

export interface MediaConnection {
  readonly attempt: string
  readonly events: Array<MediaEvent>
  /** Sends commands through the codec (tests drive the stream with it). */
  send: (commands: ReadonlyArray<MediaCommand>) => Effect.Effect<void>
  closed: boolean
}

export interface LoopbackServer {
  readonly url: string
  readonly wsUrl: string
  readonly callbackUrl: (attempt: number) => string
  readonly answerUrl: (attempt: number) => string
  readonly inboundUrl: string
  readonly events: Array<{ readonly attempt: string; readonly event: CallEvent }>
  readonly refused: Array<{ readonly path: string }>
  readonly inbound: Array<{ readonly accountId: string; readonly to: string; readonly from: string; readonly providerCallId: string }>
  readonly media: Array<MediaConnection>
  /** What an attempt's answered call should do (default: stream to `/media/{attempt}`); key `inbound`: every inbound call. */
  readonly instructions: Map<string, CallInstruction>
}

export interface LoopbackOptions<Config> {
  readonly adapter: Adapter<Config>
  readonly config: Config
  /** What the consumer plays when a stream starts (then a mark named `greeting`). */
  readonly reply?: { readonly commands: (start: Extract<MediaEvent, { _tag: "Start" }>) => ReadonlyArray<MediaCommand> }
  /** Whether the consumer closes the socket after this many audio frames (default: never). */
  readonly hangUpAfterFrames?: number
}

export const make = <Config>(options: LoopbackOptions<Config>): Effect.Effect<LoopbackServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { adapter, config } = options
    const events: LoopbackServer["events"] = []
    const refused: LoopbackServer["refused"] = []
    const inbound: LoopbackServer["inbound"] = []
    const media: Array<MediaConnection> = []
    const instructions = new Map<string, CallInstruction>()
    let base = ""

    const instructionFor = (attempt: string): CallInstruction =>
      instructions.get(attempt) ?? (attempt.startsWith("in-") ? instructions.get("inbound") : undefined) ?? { _tag: "ConnectMediaStream", url: `${base.replace(/^http/, "ws")}/media/${attempt}`, parameters: { attempt_id: attempt } }

    const webhookRequest = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const rawBody = new Uint8Array(yield* Effect.orDie(request.arrayBuffer))
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(request.headers)) if (typeof v === "string") headers[k] = v
      return { method: request.method, url: `${base}${request.url}`, headers, rawBody } satisfies WebhookRequest
    })

    const reply = (response: { status: number; contentType: string; body: string }) =>
      HttpServerResponse.text(response.body, { status: response.status, contentType: response.contentType })

    const streamMedia = (attempt: string) =>
      Effect.gen(function*() {
        const socket = yield* Effect.orDie(HttpServerRequest.upgrade)
        const write = yield* socket.writer
        const session = yield* adapter.media.open
        const connection: MediaConnection = {
          attempt,
          events: [],
          closed: false,
          send: (commands) =>
            Effect.forEach(commands, (command) =>
              Effect.flatMap(session.encode(command), (frames) =>
                Effect.forEach(frames, (f) => write(f._tag === "Text" ? f.text : f.data))), { discard: true }).pipe(Effect.orDie)
        }
        media.push(connection)
        let frames = 0
        yield* socket.runRaw((data) =>
          Effect.gen(function*() {
            const decoded = yield* session.decode(typeof data === "string" ? { _tag: "Text", text: data } : { _tag: "Binary", data })
            for (const event of decoded) {
              connection.events.push(event)
              if (event._tag === "Start") {
                yield* connection.send([...(options.reply?.commands(event) ?? []), { _tag: "Mark", name: "greeting" }])
              }
              if (event._tag === "Audio" && options.hangUpAfterFrames !== undefined && ++frames >= options.hangUpAfterFrames) {
                yield* write(new Socket.CloseEvent(1000))
              }
            }
          }).pipe(Effect.orDie)
        ).pipe(Effect.ignore)
        connection.closed = true
        return HttpServerResponse.empty()
      }).pipe(Effect.scoped)

    const app = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = new URL(request.url, "http://x").pathname
      const [, kind, attempt] = path.split("/")
      if (kind === "media" && attempt !== undefined) return yield* streamMedia(attempt)
      const webhook = yield* webhookRequest
      if (kind === "inbound") {
        const call = yield* Effect.either(adapter.webhooks.parseInbound({ request: webhook }))
        if (call._tag === "Left") return HttpServerResponse.text(call.left.message, { status: 422 })
        if (!(yield* adapter.webhooks.verify({ config, request: webhook }))) {
          refused.push({ path })
          return HttpServerResponse.text("bad signature", { status: 403 })
        }
        inbound.push(call.right)
        return reply(adapter.webhooks.answer({ config, instruction: instructionFor(`in-${call.right.providerCallId}`) }))
      }
      if ((kind !== "callbacks" && kind !== "answer") || attempt === undefined) return HttpServerResponse.empty({ status: 404 })
      if (!(yield* adapter.webhooks.verify({ config, request: webhook }))) {
        refused.push({ path })
        return HttpServerResponse.text("bad signature", { status: 403 })
      }
      const parsed = yield* Effect.either(adapter.webhooks.parseStatus({ config, request: webhook }))
      if (parsed._tag === "Left") return HttpServerResponse.text(parsed.left.message, { status: 422 })
      for (const event of parsed.right) events.push({ attempt, event })
      // A markup carrier asks its answer URL what to do once the callee answers.
      const answering = kind === "answer" || parsed.right.some((e) => e.type === "answered")
      return answering ? reply(adapter.webhooks.answer({ config, instruction: instructionFor(attempt) })) : HttpServerResponse.text("ok")
    })

    const server = yield* NodeHttpServer.make(() => Http.createServer(), { port: 0, host: "127.0.0.1" }).pipe(Effect.orDie)
    yield* server.serve(app)
    const port = server.address._tag === "TcpAddress" ? server.address.port : 0
    base = `http://127.0.0.1:${port}`
    return {
      url: base,
      wsUrl: base.replace(/^http/, "ws"),
      callbackUrl: (attempt) => `${base}/callbacks/${attempt}`,
      answerUrl: (attempt) => `${base}/answer/${attempt}`,
      inboundUrl: `${base}/inbound`,
      events,
      refused,
      inbound,
      media,
      instructions
    }
  })
