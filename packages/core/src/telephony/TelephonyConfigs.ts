/**
 * Telephony configurations: one provider's credentials per configuration, validated by the provider's
 * own schema, sensitive values encrypted at rest and masked in every response. Also resolves outbound
 * routes (`OutboundRouting`) for the dispatcher.
 */
import { Clock, Effect, Either, Fiber, Layer, Option, Schedule, Schema } from "effect"
import type { Principal } from "@agentline/api/Authentication"
import { PhoneNumbersRepo } from "../phone-numbers/PhoneNumbersRepo.js"
import { issuesOf } from "../ValidationIssues.js"
import {
  InvalidTelephonyConfig,
  NoOutboundRoute,
  TelephonyAccountNumberTaken,
  TelephonyConfigurationInUse,
  TelephonyConfigurationNameTaken,
  TelephonyConfigurationNotFound,
  TelephonyProviderImmutable,
  TelephonyProviderUnavailable
} from "./Errors.js"
import { PublicUrls } from "../PublicUrls.js"
import { MediaTokens } from "../media/MediaTokens.js"
import { AttemptId } from "@agentline/api/Ids"
import * as Connections from "./Connections.js"
import { answerInstruction, bindCalls, OutboundRouting } from "./OutboundRouting.js"
import { CallEventSink } from "./CallEventSink.js"
import { ConnectionLeasesRepo } from "./ConnectionLeasesRepo.js"
import { DispatchRepo } from "../dispatcher/DispatchRepo.js"
import { DispatcherSettings } from "../dispatcher/DispatcherSettings.js"
import { decryptConfig, encryptConfig, maskConfig, mergeMaskedUpdate, SecretBox } from "./Secrets.js"
import type { CreateTelephonyConfigurationRequest, TelephonyConfigurationDetail, UpdateTelephonyConfigurationRequest } from "@agentline/api/telephony/TelephonyConfig"
import { type StoredTelephonyConfiguration, TelephonyConfigsRepo } from "./TelephonyConfigsRepo.js"
import { InProcessInbound } from "./InProcessInbound.js"
import type { ConnectContext, TelephonyError, TelephonyProvider } from "./TelephonyProvider.js"
import { TelephonyRegistry } from "./TelephonyRegistry.js"

import { iso } from "../Time.js"

const notFound = (configurationId: number) => new TelephonyConfigurationNotFound({ configurationId })

/** `from_numbers` is accepted for compatibility and ignored: numbers are managed through their own endpoints. */
const withoutManagedKeys = ({ from_numbers: _, provider: __, ...rest }: Record<string, unknown>) => rest

export class TelephonyConfigs extends Effect.Service<TelephonyConfigs>()("@agentline/core/TelephonyConfigs", {
  scoped: Effect.gen(function*() {
    const repo = yield* TelephonyConfigsRepo
    const numbers = yield* PhoneNumbersRepo
    const registry = yield* TelephonyRegistry
    const box = yield* SecretBox
    const urls = yield* PublicUrls
    const tokens = yield* MediaTokens
    const leases = yield* ConnectionLeasesRepo
    const dispatch = yield* DispatchRepo
    const settings = yield* DispatcherSettings

    /**
     * One process of a deployment holds a configuration's connection (ARI: Asterisk gives an
     * application's events to the WebSocket that registered last, so two would take it from each other),
     * under a lease of the dispatcher's length renewed by `keepConnected`; the others place and hang up
     * calls through the provider's REST API and the holder hands them their calls' events (`adopt`).
     */
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
    const mediaToken = (provider: TelephonyProvider) => (attemptId: number) => tokens.issue({ attemptId: AttemptId.make(attemptId), provider: provider.name })
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
          const whenAnswered = yield* answerInstruction(provider, urls, mediaToken(provider))(attemptId)
          return Option.some({
            onEvent: (event, options) => sink.deliver(AttemptId.make(attemptId), event, options),
            whenAnswered
          })
        })
    })

    const providerNamed = (name: string) =>
      Option.match(registry.get(name), {
        onNone: () =>
          Effect.fail(
            new InvalidTelephonyConfig({
              issues: [{
                loc: ["body", "config", "provider"],
                msg: `Unknown provider '${name}'; supported: ${registry.all.map((p) => p.name).join(", ")}`,
                type: "literal_error",
                input: name,
                ctx: {}
              }]
            })
          ),
        onSome: (p: TelephonyProvider) => Effect.succeed(p)
      })

    /** The provider's decoded config in its JSON form, or 422 listing every field at fault. */
    const decode = (provider: TelephonyProvider, input: Record<string, unknown>) => {
      const decoded = Schema.decodeUnknownEither(provider.configSchema, { errors: "all", onExcessProperty: "ignore" })(input)
      if (Either.isLeft(decoded)) {
        return Effect.fail(new InvalidTelephonyConfig({ issues: issuesOf("body", decoded.left, input, ["config"]) }))
      }
      return Effect.succeed(Schema.encodeSync(provider.configSchema)(decoded.right) as Record<string, unknown>)
    }

    const detail = (stored: StoredTelephonyConfiguration): TelephonyConfigurationDetail => {
      const provider = registry.get(stored.provider)
      const plain = Option.isSome(provider) ? decryptConfig(provider.value, stored.credentials, box) : {}
      return {
        id: stored.id,
        name: stored.name,
        provider: stored.provider,
        is_default_outbound: stored.is_default_outbound,
        credentials: Option.isSome(provider) ? maskConfig(provider.value, plain) : {},
        created_at: stored.created_at,
        updated_at: stored.updated_at
      }
    }

    const find = (principal: Principal, id: number) =>
      Effect.flatMap(repo.find(principal.organizationId, id), Option.match({
        onNone: () => Effect.fail(notFound(id)),
        onSome: (c: StoredTelephonyConfiguration) => Effect.succeed(c)
      }))

    const nameTaken = (name: string) => new TelephonyConfigurationNameTaken({ name })

    const create = Effect.fn("TelephonyConfigs.create")(function*(principal: Principal, request: CreateTelephonyConfigurationRequest) {
      const provider = yield* providerNamed(request.config.provider)
      const config = yield* decode(provider, withoutManagedKeys(request.config))
      const created = yield* repo.insert({
        organization_id: principal.organizationId,
        name: request.name,
        provider: provider.name,
        credentials: encryptConfig(provider, config, box),
        account_id: provider.accountId(Schema.decodeUnknownSync(provider.configSchema)(config)) ?? "",
        is_default_outbound: request.is_default_outbound,
        now: iso(yield* Clock.currentTimeMillis)
      })
      if (Either.isLeft(created)) return yield* nameTaken(request.name)
      yield* connectSoon(created.right)
      return detail(created.right)
    })

    const list = Effect.fn("TelephonyConfigs.list")(function*(principal: Principal) {
      return { configurations: yield* repo.list(principal.organizationId) }
    })

    const get = Effect.fn("TelephonyConfigs.get")(function*(principal: Principal, id: number) {
      return detail(yield* find(principal, id))
    })

    const update = Effect.fn("TelephonyConfigs.update")(
      function*(principal: Principal, id: number, request: UpdateTelephonyConfigurationRequest) {
        const stored = yield* find(principal, id)
        const provider = yield* providerNamed(stored.provider)
        let credentials = stored.credentials
        let accountId = stored.account_id
        if (request.config !== undefined) {
          if (request.config.provider !== stored.provider) {
            return yield* new TelephonyProviderImmutable({ provider: stored.provider })
          }
          const current = decryptConfig(provider, stored.credentials, box)
          // Fields not sent keep their values; a masked secret sent back keeps the stored secret.
          const merged = mergeMaskedUpdate(provider, current, { ...current, ...withoutManagedKeys(request.config) })
          const config = yield* decode(provider, merged)
          credentials = encryptConfig(provider, config, box)
          accountId = provider.accountId(Schema.decodeUnknownSync(provider.configSchema)(config)) ?? ""
        }
        const name = request.name ?? stored.name
        const updated = yield* repo.update({
          organization_id: principal.organizationId,
          id,
          name,
          credentials,
          account_id: accountId,
          now: iso(yield* Clock.currentTimeMillis)
        })
        if (Either.isLeft(updated)) {
          return yield* updated.left._tag === "NameTaken"
            ? Effect.fail(nameTaken(name))
            : Effect.fail(new TelephonyAccountNumberTaken({ address: updated.left.address }))
        }
        if (Option.isNone(updated.right)) return yield* notFound(id)
        yield* connectSoon(updated.right.value)
        return detail(updated.right.value)
      }
    )

    const setDefaultOutbound = Effect.fn("TelephonyConfigs.setDefaultOutbound")(function*(principal: Principal, id: number) {
      const updated = yield* repo.setDefaultOutbound(principal.organizationId, id, iso(yield* Clock.currentTimeMillis))
      return yield* Option.match(updated, { onNone: () => Effect.fail(notFound(id)), onSome: (c) => Effect.succeed(detail(c)) })
    })

    const remove = Effect.fn("TelephonyConfigs.delete")(function*(principal: Principal, id: number) {
      const result = yield* repo.delete(principal.organizationId, id)
      if (result === "NotFound") return yield* notFound(id)
      if (result === "InUse") {
        return yield* new TelephonyConfigurationInUse({ configurationId: id })
      }
      // Its lease (shared by the configurations of one connection) runs out unless another renews it.
      yield* connections.close(id)
      return { message: "Telephony configuration deleted" }
    })

    const metadata = Effect.sync(() => ({
      providers: registry.all.map((p) => ({
        provider: p.name,
        display_name: p.displayName,
        fields: p.fields.map((f) => ({
          name: f.name,
          label: f.label,
          type: f.type,
          required: f.required,
          sensitive: f.sensitive,
          ...(f.description !== undefined ? { description: f.description } : {})
        }))
      }))
    }))

    /** A stored configuration with its provider and decrypted, decoded config (never returned to clients). */
    const open = (stored: StoredTelephonyConfiguration) =>
      Effect.gen(function*() {
        const provider = yield* Option.match(registry.get(stored.provider), {
          onNone: () => Effect.fail(new TelephonyProviderUnavailable({ provider: stored.provider })),
          onSome: Effect.succeed
        })
        const config = Schema.decodeUnknownSync(provider.configSchema)(decryptConfig(provider, stored.credentials, box))
        return { provider, config }
      })

    /**
     * Opens (or keeps) the connection of a configuration whose provider holds one (`connect`), when this
     * process holds its lease; another process holding it hears this one's calls and hands them their
     * events. A connection that cannot be opened gives the lease up, so another process may try.
     */
    const connected = (stored: StoredTelephonyConfiguration, provider: TelephonyProvider, config: unknown) =>
      holdingConnection(stored, provider, config, () => Effect.void)

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
     * A new or changed configuration's connection, opened now (incoming calls need it before any
     * outbound call): waited for briefly, never failing the request (the sweep and the first call
     * try again).
     */
    const connectSoon = (stored: StoredTelephonyConfiguration) =>
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

    /** A connection that failed to open is tried again by the sweep after this long (its warning with it). */
    const REOPEN_MILLIS = 30_000
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

    const resolve = (organizationId: number, configurationId: number | null) =>
      Effect.gen(function*() {
        const stored = configurationId === null
          ? yield* repo.findDefault(organizationId)
          : yield* repo.find(organizationId, configurationId)
        if (Option.isNone(stored)) {
          return yield* new NoOutboundRoute({ configurationId })
        }
        const { config, provider } = yield* open(stored.value)
        const callers = yield* numbers.callerIds(stored.value.id)
        return {
          configurationId: stored.value.id,
          configurationName: stored.value.name,
          provider,
          config,
          calls: bindCalls(provider, config, urls, connected(stored.value, provider, config), mediaToken(provider)),
          defaultCallerId: callers.defaultCallerId,
          callerIds: callers.active
        }
      })

    return { create, list, get, update, setDefaultOutbound, delete: remove, metadata, open, resolve, find, keepConnected } as const
  })
}) {
  /** `OutboundRouting` backed by the stored configurations. */
  static routing = Layer.effect(OutboundRouting, Effect.map(TelephonyConfigs, (configs) => OutboundRouting.of({ resolve: configs.resolve })))

  /** The serving application's sweep holding the providers' connections open (`keepConnected`). */
  static connectionsLive = Layer.scopedDiscard(Effect.flatMap(TelephonyConfigs, (configs) => Effect.forkScoped(configs.keepConnected)))
}
