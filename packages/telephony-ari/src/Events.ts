/**
 * The events WebSocket of one Stasis application (`GET /ari/events?app=<app>`, HTTP Basic with the ARI
 * user), held for as long as its scope is open: every call of the application reports over it
 * (`StasisStart`, `ChannelStateChange`, `ChannelHangupRequest`, `ChannelDestroyed` ...).
 *
 * Opening succeeds once the first connection is up (a wrong password or an unreachable Asterisk fails
 * it: the call that needed it fails, and the next one tries again). After that a lost connection is
 * re-opened with exponential backoff (0.5 s doubling to 30 s), with a health line in the logs
 * (connected / lost / reconnecting in Ns), until the scope closes. Asterisk gives an application to
 * whichever WebSocket registered it last, so one process must hold one connection per application.
 */
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { Duration, Effect, Queue, type Scope } from "effect"
import WebSocket from "ws"

/** The events URL for a REST base (`http://pbx:8088/ari`) and an application. */
export const eventsUrl = (restBase: string, app: string) => {
  const url = new URL(`${restBase.replace(/^http/, "ws")}/events`)
  url.searchParams.set("app", app)
  // Channels we originate or that enter Stasis(app) are ours already; the whole box's events are not needed.
  url.searchParams.set("subscribeAll", "false")
  return url.toString()
}

/** The delay before reconnection attempt `n` (0-based): 0.5 s, 1 s, 2 s ... at most 30 s. */
export const backoff = (attempt: number): Duration.Duration => Duration.millis(Math.min(30_000, 500 * 2 ** Math.min(attempt, 10)))

const CLOSED = Symbol("closed")
type Item = string | typeof CLOSED

const openSocket = (url: string, authorization: string, where: string) =>
  Effect.async<WebSocket, TelephonyError>((resume) => {
    let settled = false
    const settle = (effect: Effect.Effect<WebSocket, TelephonyError>) => {
      if (settled) return
      settled = true
      resume(effect)
    }
    const socket = new WebSocket(url, { headers: { authorization } })
    socket.once("open", () => settle(Effect.succeed(socket)))
    socket.once("unexpected-response", (_request, response) => {
      const status = response.statusCode ?? 0
      settle(Effect.fail(
        new TelephonyError({
          provider: "ari",
          message: status === 401 || status === 403
            ? `Asterisk refused the ARI user for ${where} (HTTP ${status}): check the ARI user and password`
            : `Asterisk refused the events WebSocket of ${where} (HTTP ${status})`,
          retryable: !(status === 401 || status === 403 || status === 404)
        })
      ))
      socket.terminate()
    })
    socket.once("error", (error) =>
      settle(Effect.fail(new TelephonyError({ provider: "ari", message: `Asterisk could not be reached for ${where}: ${error.message}`, retryable: true }))))
    return Effect.sync(() => socket.terminate())
  })

/**
 * Holds the events WebSocket of `app` open in the current scope, handing each event (parsed JSON) to
 * `handle` in the order Asterisk sent them.
 */
export const hold = (input: {
  readonly url: string
  readonly authorization: string
  /** For log lines: the Asterisk and application, never the credentials. */
  readonly where: string
  readonly handle: (event: Record<string, unknown>) => Effect.Effect<void>
}): Effect.Effect<void, TelephonyError, Scope.Scope> =>
  Effect.gen(function*() {
    const items = yield* Queue.unbounded<Item>()
    let current: WebSocket | undefined
    const attach = (socket: WebSocket) => {
      current = socket
      socket.on("message", (data, isBinary) => {
        if (!isBinary) Queue.unsafeOffer(items, data.toString())
      })
      socket.once("close", () => Queue.unsafeOffer(items, CLOSED))
    }
    yield* Effect.addFinalizer(() => Effect.sync(() => current?.close(1000)))

    attach(yield* openSocket(input.url, input.authorization, input.where))
    yield* Effect.logInfo(`ARI events of ${input.where}: connected`)

    const reconnect: Effect.Effect<void> = Effect.gen(function*() {
      for (let attempt = 0;; attempt++) {
        const delay = backoff(attempt)
        yield* Effect.logWarning(`ARI events of ${input.where}: reconnecting in ${Duration.toSeconds(delay)}s`)
        yield* Effect.sleep(delay)
        const opened = yield* Effect.either(openSocket(input.url, input.authorization, input.where))
        if (opened._tag === "Right") {
          attach(opened.right)
          yield* Effect.logInfo(`ARI events of ${input.where}: connected`)
          return
        }
        yield* Effect.logWarning(`ARI events of ${input.where}: ${opened.left.message}`)
      }
    })

    const loop = Effect.forever(Effect.gen(function*() {
      const item = yield* Queue.take(items)
      if (item === CLOSED) {
        yield* Effect.logWarning(`ARI events of ${input.where}: lost`)
        return yield* reconnect
      }
      let event: unknown
      try {
        event = JSON.parse(item)
      } catch {
        return yield* Effect.logWarning(`ARI events of ${input.where}: an event that is not JSON was ignored`)
      }
      if (typeof event === "object" && event !== null) {
        yield* input.handle(event as Record<string, unknown>).pipe(Effect.catchAllCause((cause) => Effect.logError(`ARI event of ${input.where} failed`, cause)))
      }
    }))
    yield* Effect.forkScoped(loop)
  })
