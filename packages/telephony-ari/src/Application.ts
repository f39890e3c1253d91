/**
 * The Stasis application's side of the adapter: its events WebSocket (one per application in this
 * process, shared by the configurations naming it) and what its events mean: a followed call's
 * progress and end, a channel of another process's call taken over (`ConnectContext.adopt`), an
 * incoming call handed to the server (`ConnectContext.inbound`) and answered or rejected as it says
 * (`instructCall`).
 */
import type { ConnectContext, TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { Clock, Deferred, Effect, Either, Exit, Scope } from "effect"
import { causeText, outcomeOf, timestampMillis } from "./Calls.js"
import { type Call, type Channels, durable, newCall, OUTBOUND_CHANNEL, TRACKED } from "./Channels.js"
import { type AriConfig, normalizeEndpoint } from "./Config.js"
import * as AriEvents from "./Events.js"
import * as AriInbound from "./Inbound.js"
import * as AriRest from "./Rest.js"
import * as AriTransfer from "./Transfer.js"

type Webhooks = NonNullable<TelephonyProvider<AriConfig>["webhooks"]>

export const where = (config: AriConfig) => `${normalizeEndpoint(config.ari_endpoint)} (application ${config.app_name})`

export const make = (input: { readonly channels: Channels; readonly rest: AriRest.Rest; readonly apiUrl: string | undefined }) => {
  const { channels } = input
  const send = input.rest.send
  /** Incoming channels announced and not yet gone: their StasisStart time, and whether the server instructed them. */
  const incoming = new Map<string, { readonly stamp: number; instructed: boolean }>()
  /** Channels of other processes' calls that were not theirs to hand on (looked up once). */
  const strangers = new Set<string>()

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
      const transfer = channels.transferOf(channelId)
      if (transfer !== undefined) return yield* AriTransfer.onTransferEvent({ send, channels }, transfer, event, now)
      const media = channels.callOfMedia(channelId)
      if (media !== undefined) {
        const call = media.call
        if (event.type === "StasisStart" && call !== undefined && call.ended === undefined) yield* Effect.forkDaemon(channels.bridge(call))
        return
      }
      const call = channels.call(channelId) ?? (yield* adopt(config, context, channelId))
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
            yield* Effect.forkDaemon(channels.startMedia(call))
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
            channels.forget(channelId)
            if (call.mediaStarted || call.answeredAt !== undefined) yield* Effect.forkDaemon(channels.tearDown(call))
            yield* AriTransfer.onCallEnded({ send }, call, now)
          }
          yield* call.onEvent({ ...ended, at: now }, durable)
          return
        }
        default:
          return
      }
    })

  /**
   * A channel another process of this deployment originated (`agentline-<instance>-<attempt>`, another
   * instance): this process holds the application's events WebSocket, so it serves the call (events to
   * its attempt, media once answered) when the application says the attempt is open.
   */
  const adopt = (config: AriConfig, context: ConnectContext | undefined, channelId: string) =>
    Effect.gen(function*() {
      const ours = OUTBOUND_CHANNEL.exec(channelId)
      if (ours === null || ours[1] === channels.instance || context?.adopt === undefined || strangers.has(channelId)) return undefined
      const attemptId = Number(ours[2])
      const adopted = yield* context.adopt({ attemptId, providerCallId: channelId })
      if (adopted._tag === "None") {
        if (strangers.size >= TRACKED) strangers.clear()
        strangers.add(channelId)
        return undefined
      }
      const call: Call = newCall({ channelId, config, attemptId, onEvent: adopted.value.onEvent, whenAnswered: adopted.value.whenAnswered })
      channels.track(call)
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

  const instructCall: NonNullable<Webhooks["instructCall"]> = ({ config, instruction, onEvent, providerCallId }) =>
    Effect.gen(function*() {
      const seen = incoming.get(providerCallId)
      if (seen !== undefined) seen.instructed = true
      if (instruction._tag === "Reject") {
        // No speech without a sound file on the box: a busy signal, or the call rejected.
        return yield* reject(config, providerCallId, instruction.busy === true ? "busy" : "rejected")
      }
      const call: Call = {
        ...newCall({
          channelId: providerCallId,
          config,
          attemptId: 0,
          // Its end finishes its attempt (without it, the end of the media stream does, through `get`).
          onEvent: onEvent ?? (() => Effect.void),
          whenAnswered: instruction
        }),
        answeredAt: seen?.stamp ?? (yield* Clock.currentTimeMillis),
        mediaStarted: instruction._tag === "ConnectMediaStream"
      }
      channels.track(call)
      const answered = yield* send({ config, method: "POST", path: `/channels/${encodeURIComponent(providerCallId)}/answer`, what: "answer the call" })
      if (Either.isLeft(answered)) {
        channels.drop(providerCallId)
        return yield* AriRest.failure(answered.left, "answer the call")
      }
      if (instruction._tag === "ConnectMediaStream") yield* Effect.forkDaemon(channels.startMedia(call))
    })

  /**
   * One events WebSocket per Asterisk application in this process, shared by the configurations
   * naming it (same box, same ARI user): Asterisk gives an application to the WebSocket that registered
   * it last, so a second one would silence the first. Closed when the last of them lets go.
   */
  const held = new Map<string, { refs: number; readonly scope: Scope.CloseableScope; readonly opened: Deferred.Deferred<void, TelephonyError> }>()
  const holdLock = Effect.unsafeMakeSemaphore(1)

  const connect: NonNullable<TelephonyProvider<AriConfig>["connect"]> = (config, context) =>
    Effect.gen(function*() {
      const base = yield* AriRest.baseFor(config, input.apiUrl)
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

  /** Whether this process holds the events WebSocket `config`'s calls report over (open now). */
  const hears = (config: AriConfig) =>
    Effect.gen(function*() {
      const base = yield* AriRest.baseFor(config, input.apiUrl)
      const entry = held.get(`${base}#${config.app_name}`)
      if (entry === undefined) return false
      const opened = yield* Deferred.poll(entry.opened)
      return opened._tag === "Some" && Exit.isSuccess(yield* Effect.exit(opened.value))
    })

  return { connect, instructCall, hears } as const
}
