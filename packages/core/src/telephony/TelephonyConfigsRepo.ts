import { Context, type Effect, type Either, type Option } from "effect"
import type { OrganizationId, TelephonyConfigurationId } from "@agentline/api/Ids"
import type { TelephonyConfigurationListItem } from "@agentline/api/telephony/TelephonyConfig"

export interface StoredTelephonyConfiguration {
  readonly id: TelephonyConfigurationId
  readonly organization_id: OrganizationId
  readonly name: string
  readonly provider: string
  /** The provider config with its sensitive values encrypted. */
  readonly credentials: Record<string, unknown>
  readonly account_id: string
  readonly is_default_outbound: boolean
  readonly created_at: string
  readonly updated_at: string
}

export type ConfigurationConflict =
  | { readonly _tag: "NameTaken" }
  /** A number of this configuration is already routed under the new account id elsewhere. */
  | { readonly _tag: "RoutingConflict"; readonly address: string }

/** Storage port for telephony configurations. The default-outbound flag is exclusive per organization. */
export class TelephonyConfigsRepo extends Context.Tag("@agentline/core/TelephonyConfigsRepo")<
  TelephonyConfigsRepo,
  {
    readonly insert: (input: {
      readonly organization_id: number
      readonly name: string
      readonly provider: string
      readonly credentials: Record<string, unknown>
      readonly account_id: string
      readonly is_default_outbound: boolean
      readonly now: string
    }) => Effect.Effect<Either.Either<StoredTelephonyConfiguration, ConfigurationConflict>>
    readonly list: (organizationId: number) => Effect.Effect<ReadonlyArray<TelephonyConfigurationListItem>>
    readonly find: (organizationId: number, id: number) => Effect.Effect<Option.Option<StoredTelephonyConfiguration>>
    readonly findDefault: (organizationId: number) => Effect.Effect<Option.Option<StoredTelephonyConfiguration>>
    /** Every organization's configurations of one provider (those whose connections are held open). */
    readonly listByProvider: (provider: string) => Effect.Effect<ReadonlyArray<StoredTelephonyConfiguration>>
    /** Also moves the configuration's numbers to a new account id, atomically. */
    readonly update: (input: {
      readonly organization_id: number
      readonly id: number
      readonly name: string
      readonly credentials: Record<string, unknown>
      readonly account_id: string
      readonly now: string
    }) => Effect.Effect<Either.Either<Option.Option<StoredTelephonyConfiguration>, ConfigurationConflict>>
    readonly setDefaultOutbound: (
      organizationId: number,
      id: number,
      now: string
    ) => Effect.Effect<Option.Option<StoredTelephonyConfiguration>>
    /** `InUse` while any campaign references the configuration. */
    readonly delete: (organizationId: number, id: number) => Effect.Effect<"Deleted" | "NotFound" | "InUse">
  }
>() {}
