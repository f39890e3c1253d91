/**
 * Phone numbers' rules, through the service: a number is unique per organization and, as an inbound
 * routing key (provider, account, address), across organizations; one default caller per
 * configuration; a refused request changes nothing (defect 9.3: a refused create had already cleared
 * the configuration's default caller). The wire (422 bodies, statuses, `provider_sync`) is
 * `http/test/Telephony.test.ts`.
 */
import { CreatePhoneNumberRequest } from "@agentline/api/phone-numbers/PhoneNumber"
import type { Principal } from "@agentline/api/Authentication"
import { WorkflowId } from "@agentline/api/Ids"
import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { PhoneNumbers } from "../../src/phone-numbers/PhoneNumbers.js"
import { textField } from "../../src/telephony/ProviderConfig.js"
import { TelephonyConfigs } from "../../src/telephony/TelephonyConfigs.js"
import type { TelephonyProvider } from "../../src/telephony/TelephonyProvider.js"
import { dialects, seedOrganization, TestServices } from "../Harness.js"

/** A provider whose configurations name an account: numbers route by (provider, account, address). */
const carrier: TelephonyProvider<{ readonly account: string }> = {
  name: "carrier",
  displayName: "Carrier (test)",
  configSchema: Schema.Struct({ account: Schema.String }),
  fields: [textField("account", "Account", true)],
  accountId: (config) => config.account
}

const request = (input: Partial<typeof CreatePhoneNumberRequest.Encoded> & { readonly address: string }) =>
  Schema.decodeSync(CreatePhoneNumberRequest)(input)

const configuration = (principal: Principal, account: string) =>
  Effect.map(
    Effect.flatMap(TelephonyConfigs, (configs) => configs.create(principal, { name: `c-${account}-${Math.random()}`, config: { provider: "carrier", account }, is_default_outbound: false })),
    (c) => c.id
  )

for (const dialect of dialects) {
  layer(TestServices(dialect, { providers: [carrier] }), { timeout: "60 seconds" })(`Phone numbers [${dialect}]`, (it) => {
    it.effect("unique in the organization, and across organizations under the same provider account only", () =>
      Effect.gen(function*() {
        const numbers = yield* PhoneNumbers
        const a = yield* seedOrganization()
        const b = yield* seedOrganization()
        const configA = yield* configuration(a.principal, "shared")
        const configA2 = yield* configuration(a.principal, "mine")
        const configB = yield* configuration(b.principal, "shared")
        const configB2 = yield* configuration(b.principal, "theirs")
        const national = yield* numbers.create(a.principal, configA, request({ address: "020 7946 0018", country_code: "GB" }))
        expect(national).toMatchObject({ address_normalized: "+442079460018", address_type: "pstn", country_code: "GB" })
        // However it is written, and under any configuration of the organization.
        expect(yield* Effect.flip(numbers.create(a.principal, configA2, request({ address: "+44 20 7946 0018" })))).toMatchObject({ _tag: "PhoneNumberTaken" })
        // Another organization, the same account: the same routing key.
        expect(yield* Effect.flip(numbers.create(b.principal, configB, request({ address: "+442079460018" })))).toMatchObject({ _tag: "PhoneNumberTaken" })
        // Another account: another routing key.
        expect((yield* numbers.create(b.principal, configB2, request({ address: "+442079460018" }))).address_normalized).toBe("+442079460018")
        // Another organization's configuration is not found.
        expect(yield* Effect.flip(numbers.list(b.principal, configA))).toMatchObject({ _tag: "TelephonyConfigurationNotFound" })
      }))

    it.effect("one default caller per configuration: a new default takes it over, in the same request or later", () =>
      Effect.gen(function*() {
        const numbers = yield* PhoneNumbers
        const { principal } = yield* seedOrganization()
        const config = yield* configuration(principal, "defaults")
        const first = yield* numbers.create(principal, config, request({ address: "+14155550110", is_default_caller_id: true }))
        const next = yield* numbers.create(principal, config, request({ address: "+14155550111", is_default_caller_id: true }))
        const defaults = () => Effect.map(numbers.list(principal, config), (l) => l.phone_numbers.filter((n) => n.is_default_caller_id).map((n) => n.id))
        expect(yield* defaults()).toEqual([next.id])
        expect((yield* numbers.setDefaultCaller(principal, config, first.id)).is_default_caller_id).toBe(true)
        expect(yield* defaults()).toEqual([first.id])
      }))

    it.effect("a create refused as taken leaves the default caller where it was", () =>
      Effect.gen(function*() {
        const numbers = yield* PhoneNumbers
        const { principal } = yield* seedOrganization()
        const config = yield* configuration(principal, "refused-create")
        const first = yield* numbers.create(principal, config, request({ address: "+14155550100", is_default_caller_id: true }))
        const second = yield* numbers.create(principal, config, request({ address: "+14155550101" }))
        expect(second.is_default_caller_id).toBe(false)
        const before = yield* numbers.list(principal, config)
        const duplicate = yield* Effect.flip(numbers.create(principal, config, request({ address: "+1 415 555 0101", is_default_caller_id: true })))
        expect(duplicate._tag).toBe("PhoneNumberTaken")
        expect(yield* numbers.list(principal, config)).toEqual(before)
        expect(before.phone_numbers.filter((n) => n.is_default_caller_id).map((n) => n.id)).toEqual([first.id])
      }))

    it.effect("refused updates and default changes leave every number as it was", () =>
      Effect.gen(function*() {
        const numbers = yield* PhoneNumbers
        const { principal } = yield* seedOrganization()
        const other = yield* seedOrganization()
        const config = yield* configuration(principal, "refused-update")
        const number = yield* numbers.create(principal, config, request({ address: "+14155550120", is_default_caller_id: true, label: "desk" }))
        yield* numbers.create(principal, config, request({ address: "+14155550121" }))
        const before = yield* numbers.list(principal, config)
        expect(yield* Effect.flip(numbers.update(principal, config, number.id, { address: "+14155550999", label: "changed" })))
          .toMatchObject({ _tag: "PhoneAddressImmutable" })
        expect(yield* Effect.flip(numbers.update(principal, config, number.id, { inbound_workflow_id: WorkflowId.make(999_999), label: "changed" })))
          .toMatchObject({ _tag: "InboundAgentNotFound" })
        expect(yield* Effect.flip(numbers.setDefaultCaller(principal, config, 999_999))).toMatchObject({ _tag: "PhoneNumberNotFound" })
        expect(yield* Effect.flip(numbers.setDefaultCaller(other.principal, config, number.id))).toMatchObject({ _tag: "TelephonyConfigurationNotFound" })
        expect(yield* numbers.list(principal, config)).toEqual(before)
      }))
  })
}
