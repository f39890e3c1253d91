import { Clock, Effect, Option } from "effect"
import { NotFound, Unauthorized } from "../Errors.js"
import type { Principal } from "../organizations/Principal.js"
import * as Passwords from "../users/Passwords.js"
import { UsersRepo } from "../users/UsersRepo.js"
import { DISPLAY_PREFIX_LENGTH, KEY_PREFIX } from "./ApiKey.js"
import { ApiKeysRepo } from "./ApiKeysRepo.js"

const iso = (millis: number) => new Date(millis).toISOString()

/** `last_used_at` is written at most this often per key, so authentication is not a write per request. */
const TOUCH_INTERVAL_MILLIS = 60_000

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

    const list = Effect.fn("ApiKeys.list")(function*(principal: Principal, includeArchived: boolean) {
      return yield* keys.list(principal.organizationId, includeArchived)
    })

    const setActive = (active: boolean) =>
      Effect.fn(active ? "ApiKeys.reactivate" : "ApiKeys.archive")(function*(principal: Principal, id: number) {
        const updated = yield* keys.setActive(principal.organizationId, id, active, iso(yield* Clock.currentTimeMillis))
        if (Option.isNone(updated)) return yield* new NotFound({ detail: "API key not found" })
        return {
          success: true,
          message: active ? "API key reactivated successfully" : "API key archived successfully"
        }
      })

    /** Resolves a raw key to its principal: the key's organization, acting as the user who created it. */
    const authenticate = Effect.fn("ApiKeys.authenticate")(function*(apiKey: string) {
      const invalid = new Unauthorized({ detail: "Invalid or archived API key" })
      if (!apiKey.startsWith(KEY_PREFIX)) return yield* invalid
      const digest = Passwords.sha256(apiKey)
      const stored = yield* keys.findByHash(digest)
      if (Option.isNone(stored) || !Passwords.digestsEqual(stored.value.key_hash, digest) || !stored.value.is_active) {
        return yield* invalid
      }
      const owner = yield* users.findById(stored.value.created_by)
      if (Option.isNone(owner)) return yield* new Unauthorized({ detail: "The owner of this API key no longer exists" })
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

    return { create, list, archive: setActive(false), reactivate: setActive(true), authenticate } as const
  })
}) {}
