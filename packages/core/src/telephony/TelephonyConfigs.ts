/**
 * Telephony configurations: one provider's credentials per configuration, validated by the provider's
 * own schema, sensitive values encrypted at rest and masked in every response. Also resolves outbound
 * routes (`OutboundRouting`) for the dispatcher.
 */
import { Clock, Effect, Either, Layer, Option, Schema } from "effect"
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
import { bindCalls, OutboundRouting } from "./OutboundRouting.js"
import { decryptConfig, encryptConfig, maskConfig, mergeMaskedUpdate, SecretBox } from "./Secrets.js"
import type { CreateTelephonyConfigurationRequest, TelephonyConfigurationDetail, UpdateTelephonyConfigurationRequest } from "@agentline/api/telephony/TelephonyConfig"
import { type StoredTelephonyConfiguration, TelephonyConfigsRepo } from "./TelephonyConfigsRepo.js"
import type { TelephonyProvider } from "./TelephonyProvider.js"
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
    const connections = yield* Connections.make

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
      return yield* Either.match(created, {
        onLeft: () => Effect.fail(nameTaken(request.name)),
        onRight: (c) => Effect.succeed(detail(c))
      })
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
        return yield* Option.match(updated.right, { onNone: () => Effect.fail(notFound(id)), onSome: (c) => Effect.succeed(detail(c)) })
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
          calls: bindCalls(
            provider,
            config,
            urls,
            provider.connect === undefined
              ? Effect.void
              : connections.ensure(stored.value.id, stored.value.updated_at, provider.connect(config)),
            (attemptId) => tokens.issue({ attemptId: AttemptId.make(attemptId), provider: provider.name })
          ),
          defaultCallerId: callers.defaultCallerId,
          callerIds: callers.active
        }
      })

    return { create, list, get, update, setDefaultOutbound, delete: remove, metadata, open, resolve, find } as const
  })
}) {
  /** `OutboundRouting` backed by the stored configurations. */
  static routing = Layer.effect(OutboundRouting, Effect.map(TelephonyConfigs, (configs) => OutboundRouting.of({ resolve: configs.resolve })))
}
