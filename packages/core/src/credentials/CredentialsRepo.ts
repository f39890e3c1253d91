import type { CredentialType } from "@agentline/api/credentials/Credentials"
import { Context, type Effect, type Option } from "effect"

/** A credential as stored: its data sealed (`SecretBox`, JSON inside). */
export interface StoredCredential {
  readonly uuid: string
  readonly organization_id: number
  readonly name: string
  readonly description: string | null
  readonly credential_type: CredentialType
  readonly sealed_data: string
  readonly created_at: string
  readonly updated_at: string | null
}

/** Storage port for stored credentials. */
export class CredentialsRepo extends Context.Tag("@agentline/core/CredentialsRepo")<
  CredentialsRepo,
  {
    readonly insert: (credential: StoredCredential) => Effect.Effect<void>
    readonly list: (organizationId: number) => Effect.Effect<ReadonlyArray<StoredCredential>>
    readonly find: (organizationId: number, uuid: string) => Effect.Effect<Option.Option<StoredCredential>>
    readonly update: (
      organizationId: number,
      uuid: string,
      patch: Partial<Pick<StoredCredential, "name" | "description" | "credential_type" | "sealed_data">>,
      now: string
    ) => Effect.Effect<Option.Option<StoredCredential>>
    readonly remove: (organizationId: number, uuid: string) => Effect.Effect<boolean>
  }
>() {}
