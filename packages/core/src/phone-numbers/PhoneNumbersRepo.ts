import { Context, type Effect, type Either, type Option } from "effect"
import type { PhoneNumber } from "@agentline/api/phone-numbers/PhoneNumber"

export type StoredPhoneNumber = Omit<PhoneNumber, "provider_sync"> & { readonly organization_id: number }

export type NumberConflict =
  /** The normalized address is already a number of this organization. */
  | { readonly _tag: "InOrganization" }
  /** (provider, account id, address) is already routed, in another organization. */
  | { readonly _tag: "Routed" }

/** Storage port for phone numbers. The default caller is exclusive per configuration. */
export class PhoneNumbersRepo extends Context.Tag("@agentline/core/PhoneNumbersRepo")<
  PhoneNumbersRepo,
  {
    readonly list: (organizationId: number, configurationId: number) => Effect.Effect<ReadonlyArray<StoredPhoneNumber>>
    readonly find: (
      organizationId: number,
      configurationId: number,
      id: number
    ) => Effect.Effect<Option.Option<StoredPhoneNumber>>
    readonly insert: (input: {
      readonly organization_id: number
      readonly telephony_configuration_id: number
      readonly provider: string
      readonly account_id: string
      readonly address: string
      readonly address_normalized: string
      readonly address_type: "pstn" | "sip_uri" | "sip_extension"
      readonly country_code: string | null
      readonly label: string | null
      readonly inbound_workflow_id: number | null
      readonly is_active: boolean
      readonly is_default_caller_id: boolean
      readonly extra_metadata: Record<string, unknown>
      readonly now: string
    }) => Effect.Effect<Either.Either<StoredPhoneNumber, NumberConflict>>
    readonly update: (input: {
      readonly organization_id: number
      readonly telephony_configuration_id: number
      readonly id: number
      readonly country_code: string | null
      readonly label: string | null
      readonly inbound_workflow_id: number | null
      readonly is_active: boolean
      readonly extra_metadata: Record<string, unknown>
      readonly now: string
    }) => Effect.Effect<Option.Option<StoredPhoneNumber>>
    readonly setDefaultCaller: (
      organizationId: number,
      configurationId: number,
      id: number,
      now: string
    ) => Effect.Effect<Option.Option<StoredPhoneNumber>>
    readonly delete: (organizationId: number, configurationId: number, id: number) => Effect.Effect<boolean>
    /**
     * The number an incoming call is for, across organizations, by its routing key (provider, account
     * id, normalized address): unique by construction (`insert` refuses a second one).
     */
    readonly findByRoutingKey: (key: {
      readonly provider: string
      readonly accountId: string
      readonly address: string
    }) => Effect.Effect<Option.Option<StoredPhoneNumber>>
    /** Active numbers of a configuration for caller ids: the default (if any) and all, oldest first. */
    readonly callerIds: (configurationId: number) => Effect.Effect<{
      readonly defaultCallerId: string | null
      readonly active: ReadonlyArray<string>
    }>
  }
>() {}
