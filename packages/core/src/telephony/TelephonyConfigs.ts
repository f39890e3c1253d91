/**
 * Telephony configurations: one provider's credentials per configuration, validated by the provider's
 * own schema, sensitive values encrypted at rest and masked in every response. Opening a stored
 * configuration (`openConfiguration`) gives its provider and decrypted config to those that place
 * calls with it (`calls/OutboundRoutes.ts`) or hold its connection (`calls/ProviderConnections.ts`).
 */
import { Clock, Effect, Either, Option, Schema } from "effect"
import type { Principal } from "@agentline/api/Authentication"
import { SecretBox } from "../crypto/SecretBox.js"
import type { CreateTelephonyConfigurationRequest, TelephonyConfigurationDetail, UpdateTelephonyConfigurationRequest } from "@agentline/api/telephony/TelephonyConfig"
import { iso } from "../Time.js"
import { issuesOf } from "../ValidationIssues.js"
import { ConfigurationChanges } from "./ConfigurationChanges.js"
import {
  InvalidTelephonyConfig,
  TelephonyAccountNumberTaken,
  TelephonyConfigurationInUse,
  TelephonyConfigurationNameTaken,
  TelephonyConfigurationNotFound,
  TelephonyProviderImmutable,
  TelephonyProviderUnavailable
} from "./Errors.js"
import { decryptConfig, encryptConfig, maskConfig, mergeMaskedUpdate } from "./Secrets.js"
import { type StoredTelephonyConfiguration, TelephonyConfigsRepo } from "./TelephonyConfigsRepo.js"
import type { TelephonyProvider } from "./TelephonyProvider.js"
import { TelephonyRegistry, type TelephonyRegistryShape } from "./TelephonyRegistry.js"

const notFound = (configurationId: number) => new TelephonyConfigurationNotFound({ configurationId })

/** `from_numbers` is accepted for compatibility and ignored: numbers are managed through their own endpoints. */
const withoutManagedKeys = ({ from_numbers: _, provider: __, ...rest }: Record<string, unknown>) => rest

/**
 * A stored configuration with its provider and decrypted, decoded config (never returned to clients).
 * A config that cannot be decrypted (another server secret) is a defect.
 */
export const openConfiguration = (registry: TelephonyRegistryShape, box: SecretBox["Type"]) =>
(stored: StoredTelephonyConfiguration): Effect.Effect<{ readonly provider: TelephonyProvider; readonly config: unknown }, TelephonyProviderUnavailable> =>
  Effect.flatMap(
    Option.match(registry.get(stored.provider), {
      onNone: () => Effect.fail(new TelephonyProviderUnavailable({ provider: stored.provider })),
      onSome: Effect.succeed
    }),
    (provider) => Effect.sync(() => ({ provider, config: Schema.decodeUnknownSync(provider.configSchema)(decryptConfig(provider, stored.credentials, box)) }))
  )

export class TelephonyConfigs extends Effect.Service<TelephonyConfigs>()("@agentline/core/TelephonyConfigs", {
  effect: Effect.gen(function*() {
    const repo = yield* TelephonyConfigsRepo
    const registry = yield* TelephonyRegistry
    const box = yield* SecretBox
    const changes = yield* ConfigurationChanges

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
      yield* changes.saved(created.right)
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
        yield* changes.saved(updated.right.value)
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
      yield* changes.deleted(id)
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

    return { create, list, get, update, setDefaultOutbound, delete: remove, metadata, open: openConfiguration(registry, box), find } as const
  })
}) {}
