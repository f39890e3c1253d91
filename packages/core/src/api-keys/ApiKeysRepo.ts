import { Context, type Effect, type Option } from "effect"
import type { ApiKey } from "@agentline/api/api-keys/ApiKey"

export interface StoredApiKey extends ApiKey {
  readonly organization_id: number
  readonly created_by: number
  readonly key_hash: string
}

/** Storage port for API keys. Every method but `findByHash` is scoped to an organization. */
export class ApiKeysRepo extends Context.Tag("@agentline/core/ApiKeysRepo")<
  ApiKeysRepo,
  {
    readonly insert: (key: {
      readonly organization_id: number
      readonly created_by: number
      readonly name: string
      readonly key_hash: string
      readonly key_prefix: string
      readonly now: string
    }) => Effect.Effect<ApiKey>
    /** The organization's keys, or only those `createdBy` created. */
    readonly list: (query: {
      readonly organizationId: number
      readonly includeArchived: boolean
      readonly createdBy?: number
    }) => Effect.Effect<ReadonlyArray<ApiKey>>
    readonly find: (organizationId: number, id: number) => Effect.Effect<Option.Option<StoredApiKey>>
    readonly findByHash: (keyHash: string) => Effect.Effect<Option.Option<StoredApiKey>>
    /** `None` when the key is not in the organization. */
    readonly setActive: (
      organizationId: number,
      id: number,
      active: boolean,
      now: string
    ) => Effect.Effect<Option.Option<ApiKey>>
    readonly touch: (id: number, now: string) => Effect.Effect<void>
  }
>() {}
