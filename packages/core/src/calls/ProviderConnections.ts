/**
 * The connections providers keep per configuration (`TelephonyProvider.connect`: ARI's events
 * WebSocket), held by one process of a deployment at a time. Asterisk gives an application's events to
 * the WebSocket that registered last, so two would take it from each other: a lease of the dispatcher's
 * length, renewed by the sweep (`keepConnected`), makes one process the holder; the others place and
 * hang up calls through the provider's REST API, and the holder hands them their calls' events
 * (`adopt`, through `CallEventSink`) and takes the incoming calls it hears (`InProcessInbound`).
 *
 * Opened when a configuration is saved (`ConfigurationChanges`), by the sweep, or at the latest before
 * a call of the configuration (`connected`).
 */
import { AttemptId } from "@agentline/api/Ids"
import { Clock, Effect, Fiber, Layer, Option, Schedule } from "effect"
import { SecretBox } from "../crypto/SecretBox.js"
import { DispatcherSettings } from "../dispatcher/DispatcherSettings.js"
import { DispatchRepo } from "../dispatcher/DispatchRepo.js"
import { MediaTokens } from "../media/MediaTokens.js"
import { PublicUrls } from "../PublicUrls.js"
import { CallEventSink } from "../telephony/CallEventSink.js"
import { ConfigurationChanges } from "../telephony/ConfigurationChanges.js"
import { ConnectionLeasesRepo } from "../telephony/ConnectionLeasesRepo.js"
import * as Connections from "../telephony/Connections.js"
import { InProcessInbound } from "../telephony/InProcessInbound.js"
import { answerInstruction } from "../telephony/OutboundRouting.js"
import { openConfiguration } from "../telephony/TelephonyConfigs.js"
import { type StoredTelephonyConfiguration, TelephonyConfigsRepo } from "../telephony/TelephonyConfigsRepo.js"
import type { ConnectContext, TelephonyError, TelephonyProvider } from "../telephony/TelephonyProvider.js"
import { TelephonyRegistry } from "../telephony/TelephonyRegistry.js"
import { iso } from "../Time.js"

/** A connection that failed to open is tried again by the sweep after this long (its warning with it). */
const REOPEN_MILLIS = 30_000

export class ProviderConnections extends Effect.Service<ProviderConnections>()("@agentline/core/ProviderConnections", {
  scoped: Effect.gen(function*() {
    const repo = yield* TelephonyConfigsRepo
    const registry = yield* TelephonyRegistry
    const open = openConfiguration(registry, yield* SecretBox)
    const urls = yield* PublicUrls
    const tokens = yield* MediaTokens
    const leases = yield* ConnectionLeasesRepo
    const dispatch = yield* DispatchRepo
    const settings = yield* DispatcherSettings

    const leaseMillis = settings.leaseSeconds * 1000
    /** Configuration id → the lease key last computed for it (what `adopt` compares, without decrypting). */
    const keyOfConfiguration = new Map<number, string>()
    /** The lease of a configuration's connection: the provider's connection identity, or the configuration's own. */
    const leaseKey = (stored: StoredTelephonyConfiguration, provider: TelephonyProvider, config: unknown) => {
      const key = provider.connectionKey === undefined
        ? `telephony-connection:${stored.id}`
        : `telephony-connection:${provider.name}:${provider.connectionKey(config)}`
      keyOfConfiguration.set(stored.id, key)
      return key
    }
    /** The lease key of a configuration, from the last time it was computed or from the configuration itself. */
    const leaseKeyOf = (organizationId: number, configurationId: number) =>
      Effect.gen(function*() {
        const known = keyOfConfiguration.get(configurationId)
        if (known !== undefined) return Option.some(known)
        const stored = yield* repo.find(organizationId, configurationId)
        if (Option.isNone(stored)) return Option.none<string>()
        const opened = yield* Effect.either(open(stored.value))
        return opened._tag === "Left" ? Option.none<string>() : Option.some(leaseKey(stored.value, opened.right.provider, opened.right.config))
      })
    /** The leases this process holds: key → when it runs out (local clock). */
    const heldUntil = new Map<string, number>()
    /** Leases another process held when last asked: key → when to ask again (a third of a lease later). */
    const refusedUntil = new Map<string, number>()
    const holdsLease = (key: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        // Renewed less than a third of a lease ago: still ours, no need to ask the database; nor when
        // another process held it that recently.
        if ((heldUntil.get(key) ?? 0) - now > (leaseMillis * 2) / 3) return true
        if ((refusedUntil.get(key) ?? 0) > now) return false
        const granted = yield* leases.acquire({ key, node: settings.nodeId, now: iso(now), expiresAt: iso(now + leaseMillis) })
        if (granted) {
          heldUntil.set(key, now + leaseMillis)
          refusedUntil.delete(key)
        } else {
          heldUntil.delete(key)
          refusedUntil.set(key, now + leaseMillis / 3)
        }
        return granted
      })
    const releaseLease = (key: string) =>
      Effect.suspend(() => {
        if (!heldUntil.delete(key)) return Effect.void
        return leases.release({ key, node: settings.nodeId })
      })
    // Added before the connections' scope, so it runs after they are closed: another process takes over at
    // once. Bounded, and one failure does not keep the other leases: this runs in a finalizer.
    yield* Effect.addFinalizer(() =>
      Effect.forEach(
        [...heldUntil.keys()],
        (key) => releaseLease(key).pipe(Effect.timeout("2 seconds"), Effect.catchAllCause(() => Effect.void)),
        { discard: true }
      )
    )

    const connections = yield* Connections.make
    const scope = yield* Effect.scope
    // Optional: an application without the inbound route (a test, an embedding) hears no incoming calls.
    const inProcessInbound = yield* Effect.serviceOption(InProcessInbound)
    // Optional: an application without a dispatcher adopts no other process's calls.
    const eventSink = yield* Effect.serviceOption(CallEventSink)
    const connectContext = (provider: TelephonyProvider, key: string): ConnectContext => ({
      inbound: (request) =>
        Option.match(inProcessInbound, {
          onNone: () => Effect.succeed(Option.none()),
          onSome: (sink) => sink.deliver(provider.name, request)
        }),
      adopt: ({ attemptId, providerCallId }) =>
        Effect.gen(function*() {
          if (Option.isNone(eventSink) || !(yield* eventSink.value.ready)) return Option.none()
          const sink = eventSink.value
          const attempt = yield* dispatch.findAttempt(AttemptId.make(attemptId))
          // Only an open attempt whose call this is (or whose id is not written yet), of a configuration
          // that shares this connection.
          if (
            Option.isNone(attempt) || attempt.value.provider !== provider.name || attempt.value.telephonyConfigurationId === null ||
            (attempt.value.state !== "claimed" && attempt.value.state !== "dialing") ||
            (attempt.value.providerCallId !== null && attempt.value.providerCallId !== providerCallId)
          ) return Option.none()
          const attemptKey = yield* leaseKeyOf(attempt.value.organizationId, attempt.value.telephonyConfigurationId)
          if (Option.isNone(attemptKey) || attemptKey.value !== key) return Option.none()
          const whenAnswered = yield* answerInstruction(provider, urls, tokens.issuerFor(provider.name))(attemptId)
          return Option.some({
            onEvent: (event, options) => sink.deliver(AttemptId.make(attemptId), event, options),
            whenAnswered
          })
        })
    })

    /** `connected`, and what to do when another process holds the lease. */
    const holdingConnection = (
      stored: StoredTelephonyConfiguration,
      provider: TelephonyProvider,
      config: unknown,
      otherwise: () => Effect.Effect<void>
    ): Effect.Effect<void, TelephonyError> => {
      const connect = provider.connect
      if (connect === undefined) return Effect.void
      const key = leaseKey(stored, provider, config)
      return Effect.flatMap(holdsLease(key), (mine) =>
        mine
          ? connections.ensure(stored.id, stored.updated_at, connect(config, connectContext(provider, key))).pipe(Effect.tapError(() => releaseLease(key)))
          : otherwise())
    }

    /**
     * Opens (or keeps) the connection of a configuration whose provider holds one (`connect`), when this
     * process holds its lease; another process holding it hears this one's calls and hands them their
     * events. A connection that cannot be opened gives the lease up, so another process may try.
     */
    const connected = (stored: StoredTelephonyConfiguration, provider: TelephonyProvider, config: unknown) =>
      holdingConnection(stored, provider, config, () => Effect.void)

    /**
     * A new or changed configuration's connection, opened now (incoming calls need it before any
     * outbound call): waited for briefly, never failing the request (the sweep and the first call
     * try again).
     */
    const saved = (stored: StoredTelephonyConfiguration) =>
      Effect.gen(function*() {
        const provider = Option.getOrUndefined(registry.get(stored.provider))
        if (provider?.connect === undefined) return
        const opening = yield* Effect.forkIn(
          Effect.flatMap(open(stored), ({ config }) => connected(stored, provider, config)).pipe(
            Effect.catchAll((e) => Effect.logWarning(`telephony configuration ${stored.id}: ${e.message}`)),
            Effect.catchAllDefect(() => Effect.logWarning(`telephony configuration ${stored.id}: its credentials cannot be read`))
          ),
          scope
        )
        yield* Fiber.await(opening).pipe(Effect.timeout("3 seconds"), Effect.ignore)
      })

    /** A deleted configuration's connection closes; its lease (shared by the configurations of one connection) runs out unless another renews it. */
    const deleted = (configurationId: number) => connections.close(configurationId)

    const failedAt = new Map<number, number>()

    /**
     * Holds the connections of every configuration whose provider keeps one (ARI's events WebSocket)
     * whose lease this process holds or can take, at once and then three times a lease (renewing the
     * leases; a failed open is tried again after half a minute; a changed configuration reconnects; a
     * lease another process took closes ours). Runs in the serving application only: a one-off command
     * must not take an ARI application's events from the server.
     */
    const keepConnected = Effect.gen(function*() {
      for (const provider of registry.all) {
        if (provider.connect === undefined) continue
        for (const stored of yield* repo.listByProvider(provider.name)) {
          const now = yield* Clock.currentTimeMillis
          // After a failed open, neither the lease nor the connection for a while: another process may try.
          if (now - (failedAt.get(stored.id) ?? -Infinity) < REOPEN_MILLIS) continue
          // One configuration that cannot be read (credentials under another server secret) or
          // reached does not keep the others closed.
          // Another process holding the lease (perhaps taken while this one could not renew) closes ours.
          yield* Effect.flatMap(open(stored), ({ config }) => holdingConnection(stored, provider, config, () => connections.close(stored.id))).pipe(
            Effect.tap(() => Effect.sync(() => failedAt.delete(stored.id))),
            Effect.tapErrorCause(() => Effect.sync(() => failedAt.set(stored.id, now))),
            Effect.catchAll((e) => Effect.logWarning(`telephony configuration ${stored.id}: ${e.message}`)),
            Effect.catchAllDefect(() => Effect.logWarning(`telephony configuration ${stored.id}: its credentials cannot be read`))
          )
        }
      }
    }).pipe(
      Effect.catchAllDefect((defect) => Effect.logError("telephony connections sweep failed", defect)),
      Effect.repeat(Schedule.spaced(Math.max(1, Math.floor(leaseMillis / 3)))),
      Effect.asVoid
    )

    return { connected, saved, deleted, keepConnected } as const
  })
}) {
  /** The configurations' `ConfigurationChanges`: a saved configuration connects, a deleted one disconnects. */
  static readonly changes = Layer.effect(
    ConfigurationChanges,
    Effect.map(ProviderConnections, (connections) => ConfigurationChanges.of({ saved: connections.saved, deleted: connections.deleted }))
  )

  /** The serving application's sweep holding the providers' connections open (`keepConnected`). */
  static readonly live = Layer.scopedDiscard(Effect.flatMap(ProviderConnections, (connections) => Effect.forkScoped(connections.keepConnected)))
}
