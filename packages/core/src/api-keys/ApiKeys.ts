import { Cache, Clock, Duration, Effect, Exit, Option } from "effect"
import * as Permissions from "../organizations/Permissions.js"
import type { Principal } from "@agentline/api/Authentication"
import * as Passwords from "../users/Passwords.js"
import { UsersRepo } from "../users/UsersRepo.js"
import { DISPLAY_PREFIX_LENGTH, KEY_PREFIX } from "./ApiKey.js"
import { ApiKeysRepo } from "./ApiKeysRepo.js"
import { ApiKeyNotFound, ApiKeyOwnerDeactivated, ApiKeyOwnerMissing, InvalidApiKey } from "./Errors.js"

import { iso } from "../Time.js"

/** `last_used_at` is written at most this often per key, so authentication is not a write per request. */
const TOUCH_INTERVAL_MILLIS = 60_000

/**
 * How long a verified key is trusted without asking the database again. Archiving a key evicts it from
 * this process's cache at once; another process sharing the database refuses it within this time.
 */
export const KEY_CACHE_TTL = Duration.seconds(1)
const KEY_CACHE_CAPACITY = 10_000

export class ApiKeys extends Effect.Service<ApiKeys>()("@agentline/core/ApiKeys", {
  effect: Effect.gen(function*() {
    const keys = yield* ApiKeysRepo
    const users = yield* UsersRepo

    /** 32 random bytes after the `agl_` prefix; only the SHA-256 digest and a display prefix are stored. */
    const create = Effect.fn("ApiKeys.create")(function*(principal: Principal, name: string) {
      const apiKey = Passwords.randomToken(KEY_PREFIX, 32)
      const created = yield* keys.insert({
        organization_id: principal.organizationId,
        created_by: principal.userId,
        name,
        key_hash: Passwords.sha256(apiKey),
        key_prefix: apiKey.slice(0, DISPLAY_PREFIX_LENGTH),
        now: iso(yield* Clock.currentTimeMillis)
      })
      return { id: created.id, name: created.name, key_prefix: created.key_prefix, api_key: apiKey, created_at: created.created_at }
    })

    /** Administrators see every key of the organization; members see their own. */
    const list = Effect.fn("ApiKeys.list")(function*(principal: Principal, includeArchived: boolean) {
      return yield* keys.list({
        organizationId: principal.organizationId,
        includeArchived,
        ...(Permissions.permits(principal.role, "manageOthersApiKeys") ? {} : { createdBy: principal.userId })
      })
    })

    /**
     * Anyone may archive (revoke) their own key; another user's key takes an administrator. Reactivating
     * always does: an archived key may have been revoked because it leaked, and bringing it back is the
     * organization's decision, not the holder's.
     */
    const setActive = (active: boolean) =>
      Effect.fn(active ? "ApiKeys.reactivate" : "ApiKeys.archive")(function*(principal: Principal, id: number) {
        const existing = yield* keys.find(principal.organizationId, id)
        if (Option.isNone(existing)) return yield* new ApiKeyNotFound({ apiKeyId: id })
        if (active) yield* Permissions.check(principal, "reactivateApiKeys")
        if (existing.value.created_by !== principal.userId) yield* Permissions.check(principal, "manageOthersApiKeys")
        const updated = yield* keys.setActive(principal.organizationId, id, active, iso(yield* Clock.currentTimeMillis))
        if (Option.isNone(updated)) return yield* new ApiKeyNotFound({ apiKeyId: id })
        // An archived key stops working here at once (other processes: within KEY_CACHE_TTL).
        yield* verified.invalidate(existing.value.key_hash)
        return {
          success: true,
          message: active ? "API key reactivated successfully" : "API key archived successfully"
        }
      })

    /** The principal of a key's digest, from the database. */
    const principalOf = (digest: string) => Effect.gen(function*() {
      const invalid = new InvalidApiKey()
      const stored = yield* keys.findByHash(digest)
      if (Option.isNone(stored) || !Passwords.digestsEqual(stored.value.key_hash, digest) || !stored.value.is_active) {
        return yield* invalid
      }
      const owner = yield* users.findById(stored.value.created_by)
      if (Option.isNone(owner)) return yield* new ApiKeyOwnerMissing({ apiKeyId: stored.value.id })
      if (!owner.value.is_active) return yield* new ApiKeyOwnerDeactivated({ apiKeyId: stored.value.id })
      const now = yield* Clock.currentTimeMillis
      const lastUsed = stored.value.last_used_at === null ? 0 : Date.parse(stored.value.last_used_at)
      if (now - lastUsed >= TOUCH_INTERVAL_MILLIS) yield* keys.touch(stored.value.id, iso(now))
      return {
        organizationId: stored.value.organization_id,
        userId: owner.value.id,
        email: owner.value.email,
        role: owner.value.role,
        via: { _tag: "ApiKey", apiKeyId: stored.value.id }
      } satisfies Principal as Principal
    })

    // Verified keys are remembered briefly, so a busy client's requests do not each ask the database;
    // refusals are not (a key created a moment ago must work at once).
    const verified = yield* Cache.makeWith({
      capacity: KEY_CACHE_CAPACITY,
      lookup: principalOf,
      timeToLive: (exit) => (Exit.isSuccess(exit) ? KEY_CACHE_TTL : Duration.zero)
    })

    /** Resolves a raw key to its principal: the key's organization, acting as the user who created it. */
    const authenticate = Effect.fn("ApiKeys.authenticate")(function*(apiKey: string) {
      if (!apiKey.startsWith(KEY_PREFIX)) return yield* new InvalidApiKey()
      return yield* verified.get(Passwords.sha256(apiKey))
    })

    /**
     * Forgets every verified key of this process, so a change of their owners (a role, a deactivation, a
     * removal) holds here at once; other processes see it within `KEY_CACHE_TTL`.
     */
    const forgetVerified = Effect.fn("ApiKeys.forgetVerified")(function*() {
      yield* verified.invalidateAll
    })

    return { create, list, archive: setActive(false), reactivate: setActive(true), authenticate, forgetVerified } as const
  })
}) {}
