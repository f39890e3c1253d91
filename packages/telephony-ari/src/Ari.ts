/**
 * Asterisk ARI as a telephony provider. ARI is call control without HTTP callbacks: a call is
 * originated into the configuration's Stasis application (`POST /ari/channels`), and everything that
 * happens to it arrives over the application's events WebSocket (`connect`), which reaches the
 * dispatcher through the call's `onEvent`:
 *
 * - `ChannelStateChange` to `Ringing` is `ringing`; the channel entering Stasis (`StasisStart`, it
 *   answered) is `answered`; `ChannelDestroyed` is the end, its Q.850 `cause` giving the outcome of an
 *   unanswered call (`AriCalls.unansweredOutcome`), an answered one being `completed` with the seconds
 *   between the two events' timestamps;
 * - once answered, the call's audio is connected as `whenAnswered` says: an externalMedia channel over
 *   chan_websocket (`transport=websocket`, `encapsulation=none`, `external_host=<ws_client_name>`,
 *   `format=ulaw`, the media token in `transport_data=v(token=...)`), which dials this server's media
 *   route, and a mixing bridge with both channels (`AriMedia` is the codec of that WebSocket);
 * - `hangUp` is `DELETE /ari/channels/{id}` (a call already gone is fine); `get` asks Asterisk for the
 *   channel (alive: in progress) and otherwise answers from what this process saw end; ARI keeps no
 *   record of ended calls, so after a restart an unknown channel is `Unknown`, never a guess.
 *
 * ARI has no HTTP callbacks: `webhooks.verify` refuses every HTTP request that claims to be one.
 *
 * Several processes of one deployment: one holds the application's events WebSocket (the application
 * leases it, see core's `ProviderConnections`); the others originate and hang up over REST, and the holder serves
 * their calls' events and media (`ConnectContext.adopt`), recognizing them by their channel ids.
 */
import type { CallEvent, CallInstruction, CallStatus, ConnectContext, ProviderSync, TelephonyProvider } from "@agentline/core/telephony/TelephonyProvider"
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { Clock, Deferred, Effect, Either, Exit, Scope } from "effect"
import * as Crypto from "node:crypto"
import { appArgs, causeText, DEFAULT_DIAL_STRING, dialString, outcomeOf, timestampMillis } from "./AriCalls.js"
import { accountId, type AriConfig, configuration, normalizeEndpoint } from "./AriConfig.js"
import * as AriEvents from "./AriEvents.js"
import * as AriInbound from "./AriInbound.js"
import { media } from "./AriMedia.js"
import * as AriRest from "./AriRest.js"

export * from "./AriConfig.js"
export * as Calls from "./AriCalls.js"
export * as Media from "./AriMedia.js"
export * as Events from "./AriEvents.js"
export * as Inbound from "./AriInbound.js"

/** How long an outbound channel rings before Asterisk gives up (the originate `timeout`). */
export const RING_TIMEOUT_SECONDS = 60

/** Ended calls remembered for `get` and for late (replayed) events, at most. */
const REMEMBERED = 5000
/** Calls remembered at all (those whose end never came, events lost while disconnected, included). */
const TRACKED = 50_000

interface Call {
  readonly channelId: string
  readonly config: AriConfig
  readonly attemptId: number
  readonly onEvent: (event: CallEvent, options?: { readonly durable?: boolean }) => Effect.Effect<void>
  readonly whenAnswered: Exclude<CallInstruction, { readonly _tag: "Reject" }>
  /** Asterisk's timestamp of the answer (StasisStart), for the talk time. */
  answeredAt: number | undefined
  canceledByUs: boolean
  mediaStarted: boolean
  ended: { readonly outcome: CallEvent & { type: "ended" } } | undefined
}

/** ARI's events are the provider's own reports: written to the run's log as they come (`onEvent`). */
const durable = { durable: true } as const

/** The channel id `place` chooses: this adapter instance's, and the attempt's. */
const OUTBOUND_CHANNEL = /^agentline-([0-9a-f]{8})-(\d+)$/

const mediaChannelId = (channelId: string) => `${channelId}-media`
const bridgeId = (channelId: string) => `${channelId}-bridge`

/** The media token of our media route URL (its last path segment). */
const tokenOf = (url: string) => new URL(url).pathname.split("/").filter((s) => s !== "").at(-1) ?? ""

export type AriProvider = TelephonyProvider<AriConfig>

/** The adapter; `apiUrl` replaces every configuration's `ari_endpoint` (tests; see `AGENTLINE_ARI_URL`). */
export const make = (options: { readonly apiUrl?: string | undefined } = {}): AriProvider => {
  const rest = AriRest.make(options)
  /** Distinguishes this instance's channel ids from an earlier process's (attempt ids are per database). */
  const instance = Crypto.randomBytes(4).toString("hex")
  const calls = new Map<string, Call>()
  /** externalMedia channel id → the call's channel id. */
  const mediaChannels = new Map<string, string>()
  const endedOrder: Array<string> = []
  /** Incoming channels announced and not yet gone: their StasisStart time, and whether the server instructed them. */
  const incoming = new Map<string, { readonly stamp: number; instructed: boolean }>()

  const send = rest.send

  /** A call to hear events of; the oldest are dropped past `TRACKED`. */
  const track = (call: Call) => {
    while (calls.size >= TRACKED) calls.delete(calls.keys().next().value!)
    calls.set(call.channelId, call)
  }

  const forget = (channelId: string) => {
    endedOrder.push(channelId)
    while (endedOrder.length > REMEMBERED) {
      const old = endedOrder.shift()!
      calls.delete(old)
      mediaChannels.delete(mediaChannelId(old))
    }
  }

  /** Best effort: what is left of a call's media (its channel, its bridge) once the call is gone. */
  const tearDown = (call: Call) =>
    Effect.all([
      send({ config: call.config, method: "DELETE", path: `/channels/${encodeURIComponent(mediaChannelId(call.channelId))}`, what: "hang up the media channel" }),
      send({ config: call.config, method: "DELETE", path: `/bridges/${encodeURIComponent(bridgeId(call.channelId))}`, what: "remove the bridge" })
    ], { discard: true, concurrency: 2 }).pipe(Effect.ignore)

  /** The answered call's audio: an externalMedia channel dialing our media route (bridged on its StasisStart). */
  const startMedia = (call: Call) =>
    Effect.gen(function*() {
      const instruction = call.whenAnswered
      if (instruction._tag !== "ConnectMediaStream") return
      if (call.config.ws_client_name === "") {
        return yield* Effect.logWarning(`ARI call ${call.channelId}: the configuration names no ws_client_name, so the call carries no audio`)
      }
      // The call may have ended while it was being answered: no audio for a call that is gone.
      if (call.ended !== undefined) return
      const externalId = mediaChannelId(call.channelId)
      mediaChannels.set(externalId, call.channelId)
      const created = yield* send({
        config: call.config,
        method: "POST",
        path: "/channels/externalMedia",
        query: {
          app: call.config.app_name,
          channelId: externalId,
          external_host: call.config.ws_client_name,
          format: "ulaw",
          transport: "websocket",
          encapsulation: "none",
          connection_type: "client",
          direction: "both",
          // Appended by chan_websocket to the websocket_client.conf URI as query parameters.
          transport_data: `v(token=${tokenOf(instruction.url)})`
        },
        what: "connect the call's audio"
      })
      if (Either.isLeft(created)) {
        yield* Effect.logWarning(`ARI call ${call.channelId}: ${AriRest.failure(created.left, "connect the call's audio").message}`)
      } else if (call.ended !== undefined) {
        // It ended while the media channel was being made: its teardown may have come first.
        yield* tearDown(call)
      }
    }).pipe(Effect.catchAll((e) => Effect.logWarning(`ARI call ${call.channelId}: ${e.message}`)))

  /** Both channels in one mixing bridge, once the media channel is in Stasis too. */
  const bridge = (call: Call) =>
    Effect.gen(function*() {
      const id = bridgeId(call.channelId)
      const made = yield* send({ config: call.config, method: "POST", path: "/bridges", query: { type: "mixing", bridgeId: id, name: id }, what: "create the bridge" })
      if (Either.isLeft(made)) return yield* Effect.logWarning(`ARI call ${call.channelId}: ${AriRest.failure(made.left, "create the bridge").message}`)
      const added = yield* send({
        config: call.config,
        method: "POST",
        path: `/bridges/${encodeURIComponent(id)}/addChannel`,
        query: { channel: `${call.channelId},${mediaChannelId(call.channelId)}` },
        what: "bridge the call with its audio"
      })
      if (Either.isLeft(added)) yield* Effect.logWarning(`ARI call ${call.channelId}: ${AriRest.failure(added.left, "bridge the call with its audio").message}`)
    }).pipe(Effect.catchAll((e) => Effect.logWarning(`ARI call ${call.channelId}: ${e.message}`)))

  /**
   * One event of the application. Events of a call are handed on even when repeated or late (the
   * consumer ignores what comes after the end); the media is set up once.
   */
  const handle = (config: AriConfig, context: ConnectContext | undefined) => (event: Record<string, unknown>): Effect.Effect<void> =>
    Effect.gen(function*() {
      if (event.type === "ApplicationReplaced") {
        // Another WebSocket registered the application: this one hears nothing more from now on.
        return yield* Effect.logError(
          `ARI events of ${where(config)}: another client took the application (Asterisk gives it to the WebSocket that registered last); ` +
            "only one Agentline process may serve an ARI user"
        )
      }
      const channel = (event.channel ?? {}) as Record<string, unknown>
      const channelId = typeof channel.id === "string" ? channel.id : undefined
      if (channelId === undefined) return
      const now = yield* Clock.currentTimeMillis
      const stamp = timestampMillis(event.timestamp, now)
      const parent = mediaChannels.get(channelId)
      if (parent !== undefined) {
        const call = calls.get(parent)
        if (event.type === "StasisStart" && call !== undefined && call.ended === undefined) yield* Effect.forkDaemon(bridge(call))
        return
      }
      const call = calls.get(channelId) ?? (yield* adopt(config, context, channelId))
      if (call === undefined) {
        const args = Array.isArray(event.args) ? event.args.filter((a): a is string => typeof a === "string") : []
        if (AriInbound.isIncoming(event, args) && !incoming.has(channelId)) {
          incoming.set(channelId, { stamp, instructed: false })
          yield* Effect.forkDaemon(receive(config, context, channelId, event))
        }
        if (event.type === "ChannelDestroyed") incoming.delete(channelId)
        return
      }
      // Up without this process having seen it enter Stasis: answered while another process held the
      // application (the lease moved mid-call), which connected its audio. It ends completed, and what is
      // left of its media is removed here.
      if (call.answeredAt === undefined && channel.state === "Up" && event.type !== "StasisStart" && event.type !== "ChannelStateChange") {
        call.answeredAt = stamp
      }
      switch (event.type) {
        case "ChannelStateChange":
          if (channel.state === "Ringing") yield* call.onEvent({ type: "ringing", providerCallId: channelId, at: now }, durable)
          return
        case "StasisStart": {
          call.answeredAt ??= stamp
          yield* call.onEvent({ type: "answered", providerCallId: channelId, at: now }, durable)
          if (!call.mediaStarted && call.ended === undefined) {
            call.mediaStarted = true
            yield* Effect.forkDaemon(startMedia(call))
          }
          return
        }
        case "ChannelDestroyed": {
          const cause = typeof event.cause === "number" ? event.cause : undefined
          const ended = call.ended?.outcome ?? ({
            type: "ended",
            providerCallId: channelId,
            at: now,
            outcome: outcomeOf({ answered: call.answeredAt !== undefined, canceledByUs: call.canceledByUs, cause }),
            durationSeconds: call.answeredAt === undefined ? 0 : Math.max(0, Math.round((stamp - call.answeredAt) / 1000)),
            ...(causeText(cause, event.cause_txt) !== undefined ? { hangupCause: causeText(cause, event.cause_txt)! } : {})
          } as const)
          if (call.ended === undefined) {
            call.ended = { outcome: ended }
            forget(channelId)
            if (call.mediaStarted || call.answeredAt !== undefined) yield* Effect.forkDaemon(tearDown(call))
          }
          yield* call.onEvent({ ...ended, at: now }, durable)
          return
        }
        default:
          return
      }
    })

  /** Channels of other processes' calls that were not theirs to hand on (looked up once). */
  const strangers = new Set<string>()

  /**
   * A channel another process of this deployment originated (`agentline-<instance>-<attempt>`, another
   * instance): this process holds the application's events WebSocket, so it serves the call (events to
   * its attempt, media once answered) when the application says the attempt is open.
   */
  const adopt = (config: AriConfig, context: ConnectContext | undefined, channelId: string) =>
    Effect.gen(function*() {
      const ours = OUTBOUND_CHANNEL.exec(channelId)
      if (ours === null || ours[1] === instance || context?.adopt === undefined || strangers.has(channelId)) return undefined
      const attemptId = Number(ours[2])
      const adopted = yield* context.adopt({ attemptId, providerCallId: channelId })
      if (adopted._tag === "None") {
        if (strangers.size >= TRACKED) strangers.clear()
        strangers.add(channelId)
        return undefined
      }
      const call: Call = {
        channelId,
        config,
        attemptId,
        onEvent: adopted.value.onEvent,
        whenAnswered: adopted.value.whenAnswered,
        answeredAt: undefined,
        canceledByUs: false,
        mediaStarted: false,
        ended: undefined
      }
      track(call)
      return call
    })

  /**
   * An incoming call: the server routes it (and answers or rejects it by `instructCall`); a call it
   * did not instruct (an unknown number, no inbound route) is rejected here, as it would otherwise
   * wait in Stasis for ever.
   */
  const receive = (config: AriConfig, context: ConnectContext | undefined, channelId: string, event: Record<string, unknown>) =>
    Effect.gen(function*() {
      if (context === undefined) {
        yield* Effect.logWarning(`ARI incoming call ${channelId}: this application takes no incoming calls`)
      } else {
        yield* context.inbound(AriInbound.request(config, event, config.app_password))
      }
      if (incoming.get(channelId)?.instructed !== true) yield* reject(config, channelId, "rejected")
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning(`ARI incoming call ${channelId} failed`, cause)))

  const reject = (config: AriConfig, channelId: string, reason: "busy" | "rejected") =>
    Effect.gen(function*() {
      const deleted = yield* send({ config, method: "DELETE", path: `/channels/${encodeURIComponent(channelId)}`, query: { reason }, what: "reject the call" })
      if (Either.isLeft(deleted) && deleted.left.status !== 404) return yield* AriRest.failure(deleted.left, "reject the call")
    })

  const instructCall: NonNullable<NonNullable<AriProvider["webhooks"]>["instructCall"]> = ({ config, instruction, onEvent, providerCallId }) =>
    Effect.gen(function*() {
      const seen = incoming.get(providerCallId)
      if (seen !== undefined) seen.instructed = true
      if (instruction._tag === "Reject") {
        // No speech without a sound file on the box: a busy signal, or the call rejected.
        return yield* reject(config, providerCallId, instruction.busy === true ? "busy" : "rejected")
      }
      const call: Call = {
        channelId: providerCallId,
        config,
        attemptId: 0,
        // Its end finishes its attempt (without it, the end of the media stream does, through `get`).
        onEvent: onEvent ?? (() => Effect.void),
        whenAnswered: instruction,
        answeredAt: seen?.stamp ?? (yield* Clock.currentTimeMillis),
        canceledByUs: false,
        mediaStarted: instruction._tag === "ConnectMediaStream",
        ended: undefined
      }
      calls.set(providerCallId, call)
      const answered = yield* send({ config, method: "POST", path: `/channels/${encodeURIComponent(providerCallId)}/answer`, what: "answer the call" })
      if (Either.isLeft(answered)) {
        calls.delete(providerCallId)
        return yield* AriRest.failure(answered.left, "answer the call")
      }
      if (instruction._tag === "ConnectMediaStream") yield* Effect.forkDaemon(startMedia(call))
    })

  /**
   * Asterisk has no per-number webhook: its dialplan sends calls to `Stasis(<app>)`. Binding a number
   * checks that Asterisk knows the application (it does while this server holds its events
   * WebSocket) and says what the dialplan needs; unbinding changes nothing there.
   */
  const configure: NonNullable<AriProvider["inbound"]>["configure"] = ({ address, config, webhookUrl }) =>
    Effect.gen(function*() {
      if (webhookUrl === null) {
        return { ok: true, message: `nothing to clear on Asterisk: its dialplan decides where ${address} goes` } satisfies ProviderSync
      }
      const found = yield* send({ config, method: "GET", path: `/applications/${encodeURIComponent(config.app_name)}`, what: "look the application up" })
      if (Either.isLeft(found)) {
        return {
          ok: false,
          message: found.left.status === 404
            ? `Asterisk does not know the Stasis application ${config.app_name} yet (it is registered while this server holds its events WebSocket)`
            : AriRest.failure(found.left, "look the application up").message
        } satisfies ProviderSync
      }
      return {
        ok: true,
        message: `Asterisk hears the Stasis application ${config.app_name}: its dialplan must send ${address} to Stasis(${config.app_name})`
      } satisfies ProviderSync
    }).pipe(Effect.catchAll((e) => Effect.succeed({ ok: false, message: e.message } satisfies ProviderSync)))

  const where = (config: AriConfig) => `${normalizeEndpoint(config.ari_endpoint)} (application ${config.app_name})`

  /**
   * One events WebSocket per Asterisk application in this process, shared by the configurations
   * naming it (same box, same ARI user): Asterisk gives an application to the WebSocket that registered
   * it last, so a second one would silence the first. Closed when the last of them lets go.
   */
  const held = new Map<string, { refs: number; readonly scope: Scope.CloseableScope; readonly opened: Deferred.Deferred<void, TelephonyError> }>()
  const holdLock = Effect.unsafeMakeSemaphore(1)

  const connect: AriProvider["connect"] = (config, context) =>
    Effect.gen(function*() {
      const base = yield* AriRest.baseFor(config, options.apiUrl)
      const key = `${base}#${config.app_name}`
      const entry = yield* holdLock.withPermits(1)(Effect.gen(function*() {
        const current = held.get(key)
        if (current !== undefined) {
          current.refs++
          return current
        }
        const scope = yield* Scope.make()
        const opened = yield* Deferred.make<void, TelephonyError>()
        const created = { refs: 1, scope, opened }
        held.set(key, created)
        yield* AriEvents.hold({
          url: AriEvents.eventsUrl(base, config.app_name),
          authorization: AriRest.basicAuth(config),
          where: where(config),
          handle: handle(config, context)
        }).pipe(
          Scope.extend(scope),
          Effect.exit,
          Effect.flatMap((exit) => Deferred.done(opened, exit))
        )
        return created
      }))
      const release = holdLock.withPermits(1)(Effect.suspend(() => {
        entry.refs--
        if (entry.refs > 0 || held.get(key) !== entry) return Effect.void
        held.delete(key)
        return Scope.close(entry.scope, Exit.void)
      }))
      yield* Effect.addFinalizer(() => release)
      yield* Deferred.await(entry.opened)
    })

  const place: NonNullable<AriProvider["calls"]>["place"] = (input) =>
    Effect.gen(function*() {
      const { config } = input
      const endpoint = dialString(config.dial_string === "" ? DEFAULT_DIAL_STRING : config.dial_string, input.to)
      if (endpoint === undefined) {
        return yield* new TelephonyError({ provider: "ari", message: `${input.to} cannot be dialed through Asterisk: it is not a dialable address`, retryable: false })
      }
      // Chosen by us so the call is known before Asterisk answers (its events may come before the
      // reply), and the same for every try of this attempt: Asterisk refuses a second channel with the
      // id (409), so a retried request whose first try got through does not dial twice.
      const channelId = `agentline-${instance}-${input.attemptId}`
      track({
        channelId,
        config,
        attemptId: input.attemptId,
        onEvent: input.onEvent,
        whenAnswered: input.whenAnswered,
        answeredAt: undefined,
        canceledByUs: false,
        mediaStarted: false,
        ended: undefined
      })
      const placed = yield* send({
        config,
        method: "POST",
        path: "/channels",
        query: {
          endpoint,
          app: config.app_name,
          appArgs: appArgs(input.attemptId),
          channelId,
          callerId: input.from,
          timeout: String(RING_TIMEOUT_SECONDS)
        },
        what: `dial ${input.to}`
      }).pipe(Effect.tapError(() => Effect.sync(() => calls.delete(channelId))))
      // 409: an earlier try of this attempt created the channel; it is the call.
      if (Either.isLeft(placed) && placed.left.status !== 409) {
        calls.delete(channelId)
        // Asterisk answers 500 "Allocation failed" when it cannot make the channel at all (no such
        // endpoint or trunk, a technology it lacks): the dial string is wrong, trying again cannot help.
        if (placed.left.status === 500 && placed.left.message === "Allocation failed") {
          return yield* new TelephonyError({
            provider: "ari",
            message: `Asterisk could not create a channel to dial ${input.to} (${endpoint}): no such endpoint or trunk; check the dial string (HTTP 500 Allocation failed)`,
            retryable: false
          })
        }
        return yield* AriRest.failure(placed.left, `dial ${input.to} (${endpoint})`)
      }
      yield* input.onEvent({ type: "initiated", providerCallId: channelId, at: yield* Clock.currentTimeMillis }, durable)
      return { providerCallId: channelId }
    })

  const hangUp: NonNullable<AriProvider["calls"]>["hangUp"] = ({ config, providerCallId }) =>
    Effect.gen(function*() {
      const call = calls.get(providerCallId)
      if (call !== undefined && call.answeredAt === undefined && call.ended === undefined) call.canceledByUs = true
      const deleted = yield* send({
        config,
        method: "DELETE",
        path: `/channels/${encodeURIComponent(providerCallId)}`,
        query: { reason: "normal" },
        what: "hang up the call"
      })
      // 404: the channel is gone already, which is what a hang-up wants.
      if (Either.isLeft(deleted) && deleted.left.status !== 404) return yield* AriRest.failure(deleted.left, "hang up the call")
    })

  const get: NonNullable<AriProvider["calls"]>["get"] = ({ config, providerCallId }) =>
    Effect.gen(function*() {
      const known = calls.get(providerCallId)?.ended
      if (known !== undefined) {
        return { _tag: "Ended", outcome: known.outcome.outcome, durationSeconds: known.outcome.durationSeconds } satisfies CallStatus
      }
      const found = yield* send({ config, method: "GET", path: `/channels/${encodeURIComponent(providerCallId)}`, what: "look the call up" })
      if (Either.isRight(found)) return { _tag: "InProgress" } satisfies CallStatus
      return {
        _tag: "Unknown",
        reason: found.left.status === 404
          ? `Asterisk has no channel ${providerCallId} any more, and ARI keeps no record of ended calls`
          : AriRest.failure(found.left, "look the call up").message
      } satisfies CallStatus
    }).pipe(Effect.catchAll((e) => Effect.succeed({ _tag: "Unknown", reason: e.message } satisfies CallStatus)))

  const noCallbacks = new TelephonyError({ provider: "ari", message: "Asterisk ARI sends no HTTP callbacks: its events come over the events WebSocket", retryable: false })

  return {
    ...configuration,
    calls: { place, hangUp, get },
    connectionKey: accountId,
    webhooks: {
      // Only the adapter's own in-process requests carry the MAC; ARI never posts callbacks.
      verify: ({ config, request }) => Effect.sync(() => AriInbound.verify(config, request)),
      parseStatus: () => Effect.fail(noCallbacks),
      parseInbound: ({ request }) => Effect.try({ try: () => AriInbound.parse(request), catch: (e) => e instanceof TelephonyError ? e : noCallbacks }),
      // Asterisk reads no document: `instructCall` acts on the channel.
      answer: ({ instruction }) => ({ status: 200, contentType: "application/json", body: JSON.stringify({ instruction: instruction._tag }) }),
      instructCall
    },
    media,
    inbound: { configure },
    connect
  }
}

/** The adapter the server registers: each configuration's own Asterisk (`AGENTLINE_ARI_URL` for tests). */
export const provider: AriProvider = make()
