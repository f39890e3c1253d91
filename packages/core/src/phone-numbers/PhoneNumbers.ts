/**
 * Phone numbers of a telephony configuration: normalized addresses, unique per organization and, as
 * an inbound routing key (provider, account id, address), across all organizations. Binding a number to
 * an agent configures the provider's inbound webhook; the result is reported as `provider_sync` (a
 * failure there is a warning: the change is saved).
 */
import { Clock, Effect, Either, Option } from "effect"
import type { Principal } from "@agentline/api/Authentication"
import { PublicUrls } from "../PublicUrls.js"
import { TelephonyConfigs } from "../telephony/TelephonyConfigs.js"
import type { ProviderSync } from "@agentline/telephony-kit/TelephonyProvider"
import { WorkflowsRepo } from "../workflows/WorkflowsRepo.js"
import {
  InboundAgentArchived,
  InboundAgentNotFound,
  InvalidPhoneNumber,
  PhoneAddressImmutable,
  PhoneNumberNotFound,
  PhoneNumberTaken
} from "./Errors.js"
import { normalizeAddress } from "./PhoneAddress.js"
import type { CreatePhoneNumberRequest, PhoneNumber, UpdatePhoneNumberRequest } from "@agentline/api/phone-numbers/PhoneNumber"
import { PhoneNumbersRepo, type StoredPhoneNumber } from "./PhoneNumbersRepo.js"

import { iso } from "../Time.js"

const notFound = (phoneNumberId: number) => new PhoneNumberNotFound({ phoneNumberId })

const notAnswered: ProviderSync = {
  ok: false,
  message: "The number is saved with its agent, but this server does not answer inbound calls yet, " +
    "so the provider was not pointed at it"
}

const present = ({ organization_id: _, ...stored }: StoredPhoneNumber, sync: ProviderSync | null): PhoneNumber => ({
  ...stored,
  provider_sync: sync
})

export class PhoneNumbers extends Effect.Service<PhoneNumbers>()("@agentline/core/PhoneNumbers", {
  effect: Effect.gen(function*() {
    const repo = yield* PhoneNumbersRepo
    const configs = yield* TelephonyConfigs
    const workflows = yield* WorkflowsRepo
    const urls = yield* PublicUrls

    /** The agent a number is bound to must be the organization's and active. */
    const checkInboundAgent = (principal: Principal, workflowId: number) =>
      Effect.gen(function*() {
        const workflow = yield* workflows.find(principal.organizationId, workflowId)
        if (Option.isNone(workflow)) return yield* new InboundAgentNotFound({ workflowId })
        if (workflow.value.status !== "active") {
          return yield* new InboundAgentArchived({ workflowId })
        }
      })

    /**
     * Points the provider's inbound webhook at us (bound and active) or removes it. A server that does
     * not answer inbound calls points nothing anywhere: there is then nothing to remove either (`null`).
     */
    const sync = (principal: Principal, configurationId: number, number: StoredPhoneNumber, attach: boolean) =>
      Effect.gen(function*() {
        const inbound = urls.telephonyInbound
        if (inbound === undefined) {
          return attach ? notAnswered : null
        }
        const stored = yield* configs.find(principal, configurationId)
        const opened = yield* configs.open(stored).pipe(Effect.either)
        if (Either.isLeft(opened)) return { ok: false, message: opened.left.message }
        const { config, provider } = opened.right
        if (provider.inbound === undefined) {
          const todo = attach
            ? `point the number's voice webhook at ${inbound({ provider: provider.name })}`
            : "remove the number's voice webhook"
          return { ok: false, message: `${provider.displayName}: ${todo} in the provider's console; this adapter cannot do it` }
        }
        return yield* provider.inbound.configure({
          config,
          address: number.address_normalized,
          webhookUrl: attach ? inbound({ provider: provider.name }) : null
        })
      })

    const list = Effect.fn("PhoneNumbers.list")(function*(principal: Principal, configurationId: number) {
      yield* configs.find(principal, configurationId)
      return { phone_numbers: (yield* repo.list(principal.organizationId, configurationId)).map((n) => present(n, null)) }
    })

    const get = Effect.fn("PhoneNumbers.get")(function*(principal: Principal, configurationId: number, id: number) {
      yield* configs.find(principal, configurationId)
      const number = yield* repo.find(principal.organizationId, configurationId, id)
      return yield* Option.match(number, { onNone: () => Effect.fail(notFound(id)), onSome: (n) => Effect.succeed(present(n, null)) })
    })

    const create = Effect.fn("PhoneNumbers.create")(
      function*(principal: Principal, configurationId: number, request: CreatePhoneNumberRequest) {
        const configuration = yield* configs.find(principal, configurationId)
        if (request.inbound_workflow_id != null) yield* checkInboundAgent(principal, request.inbound_workflow_id)
        const normalized = normalizeAddress(request.address, request.country_code ?? null)
        if (Either.isLeft(normalized)) {
          return yield* new InvalidPhoneNumber({ field: "address", input: request.address, reason: normalized.left.message })
        }
        const inserted = yield* repo.insert({
          organization_id: principal.organizationId,
          telephony_configuration_id: configurationId,
          provider: configuration.provider,
          account_id: configuration.account_id,
          address: request.address,
          address_normalized: normalized.right.normalized,
          address_type: normalized.right.type,
          country_code: request.country_code?.toUpperCase() ?? normalized.right.countryCode,
          label: request.label ?? null,
          inbound_workflow_id: request.inbound_workflow_id ?? null,
          is_active: request.is_active,
          is_default_caller_id: request.is_default_caller_id,
          extra_metadata: request.extra_metadata,
          now: iso(yield* Clock.currentTimeMillis)
        })
        if (Either.isLeft(inserted)) {
          return yield* new PhoneNumberTaken({
            address: normalized.right.normalized,
            by: inserted.left._tag === "InOrganization" ? "this_organization" : "another_organization"
          })
        }
        const number = inserted.right
        const providerSync = number.inbound_workflow_id !== null
          ? yield* sync(principal, configurationId, number, number.is_active)
          : null
        return present(number, providerSync)
      }
    )

    const update = Effect.fn("PhoneNumbers.update")(
      function*(principal: Principal, configurationId: number, id: number, request: UpdatePhoneNumberRequest) {
        yield* configs.find(principal, configurationId)
        const current = yield* Effect.flatMap(repo.find(principal.organizationId, configurationId, id), Option.match({
          onNone: () => Effect.fail(notFound(id)),
          onSome: (n: StoredPhoneNumber) => Effect.succeed(n)
        }))
        if (request.address !== undefined && request.address !== current.address) {
          return yield* new PhoneAddressImmutable({ phoneNumberId: id })
        }
        if (request.inbound_workflow_id != null && request.inbound_workflow_id !== current.inbound_workflow_id) {
          yield* checkInboundAgent(principal, request.inbound_workflow_id)
        }
        const updated = yield* repo.update({
          organization_id: principal.organizationId,
          telephony_configuration_id: configurationId,
          id,
          country_code: request.country_code === undefined ? current.country_code : request.country_code?.toUpperCase() ?? null,
          label: request.label === undefined ? current.label : request.label,
          inbound_workflow_id: request.inbound_workflow_id === undefined ? current.inbound_workflow_id : request.inbound_workflow_id,
          is_active: request.is_active ?? current.is_active,
          extra_metadata: request.extra_metadata ?? current.extra_metadata,
          now: iso(yield* Clock.currentTimeMillis)
        })
        if (Option.isNone(updated)) return yield* notFound(id)
        const number = updated.value
        const touchesInbound = number.inbound_workflow_id !== current.inbound_workflow_id || number.is_active !== current.is_active
        const providerSync = touchesInbound && (number.inbound_workflow_id !== null || current.inbound_workflow_id !== null)
          ? yield* sync(principal, configurationId, number, number.inbound_workflow_id !== null && number.is_active)
          : null
        return present(number, providerSync)
      }
    )

    const setDefaultCaller = Effect.fn("PhoneNumbers.setDefaultCaller")(
      function*(principal: Principal, configurationId: number, id: number) {
        yield* configs.find(principal, configurationId)
        const updated = yield* repo.setDefaultCaller(principal.organizationId, configurationId, id, iso(yield* Clock.currentTimeMillis))
        return yield* Option.match(updated, { onNone: () => Effect.fail(notFound(id)), onSome: (n) => Effect.succeed(present(n, null)) })
      }
    )

    const remove = Effect.fn("PhoneNumbers.delete")(function*(principal: Principal, configurationId: number, id: number) {
      yield* configs.find(principal, configurationId)
      const current = yield* repo.find(principal.organizationId, configurationId, id)
      if (Option.isNone(current)) return yield* notFound(id)
      const providerSync = current.value.inbound_workflow_id !== null
        ? yield* sync(principal, configurationId, current.value, false)
        : null
      yield* repo.delete(principal.organizationId, configurationId, id)
      return { message: "Phone number deleted", provider_sync: providerSync }
    })

    return { list, get, create, update, setDefaultCaller, delete: remove } as const
  })
}) {}
