/**
 * The telephony configurations' rules, through the service: a provider's sensitive values sealed at
 * rest and masked in what it returns (a returned detail sent back keeps them), the account id kept in
 * step, the provider fixed, names unique per organization, one default outbound configuration per
 * organization even under concurrent requests, and a configuration in use kept. The wire (statuses,
 * 422 bodies, the providers' metadata) is `http/test/Telephony.test.ts`.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Campaigns } from "../../src/campaigns/Campaigns.js"
import { secretField, textField } from "../../src/telephony/ProviderConfig.js"
import { TelephonyConfigs } from "../../src/telephony/TelephonyConfigs.js"
import type { TelephonyProvider } from "../../src/telephony/TelephonyProvider.js"
import { Workflows } from "../../src/workflows/Workflows.js"
import { csvOf, plainDefinition, uploadCsv } from "../DispatchHarness.js"
import { dialects, seedOrganization, TestServices } from "../Harness.js"

/** A provider with a sensitive account id and token, and a plain region. */
const vault: TelephonyProvider<{ readonly account: string; readonly token: string; readonly region: string }> = {
  name: "vault",
  displayName: "Vault (test)",
  configSchema: Schema.Struct({ account: Schema.NonEmptyTrimmedString, token: Schema.NonEmptyTrimmedString, region: Schema.optionalWith(Schema.String, { default: () => "eu" }) }),
  fields: [secretField("account", "Account", true), secretField("token", "Token", true), textField("region", "Region", false)],
  accountId: (config) => config.account
}

const config = (account = "ACCOUNT-0123456789", token = "super-secret-token-1234") => ({ provider: "vault", account, token })

for (const dialect of dialects) {
  layer(TestServices(dialect, { providers: [vault] }), { timeout: "60 seconds" })(`Telephony configurations [${dialect}]`, (it) => {
    it.effect("sensitive values are sealed at rest and masked when returned; a returned detail sent back keeps them", () =>
      Effect.gen(function*() {
        const configs = yield* TelephonyConfigs
        const { principal } = yield* seedOrganization()
        const created = yield* configs.create(principal, { name: "Main", config: { ...config(), from_numbers: ["+14155550100"] }, is_default_outbound: false })
        expect(created).toMatchObject({ name: "Main", provider: "vault", is_default_outbound: false })
        expect(created.credentials).toEqual({ account: "**************6789", token: "*******************1234", region: "eu" })

        const sql = yield* SqlClient.SqlClient
        const [raw] = yield* sql<{ credentials: unknown; account_id: string }>`SELECT credentials, account_id FROM telephony_configurations WHERE id = ${created.id}`
        const stored = JSON.stringify(raw!.credentials)
        expect(stored).not.toContain("super-secret-token-1234")
        expect(stored).not.toContain("ACCOUNT-0123456789")
        expect(stored).toContain("v1:")
        expect(raw!.account_id).toBe("ACCOUNT-0123456789")

        // What a client got back, sent back: nothing changes.
        const fetched = yield* configs.get(principal, created.id)
        const putBack = yield* configs.update(principal, created.id, { name: "Main", config: { provider: "vault", ...fetched.credentials } })
        expect(putBack.credentials).toEqual(created.credentials)
        const opened = yield* configs.open(yield* configs.find(principal, created.id))
        expect(opened.config).toEqual({ account: "ACCOUNT-0123456789", token: "super-secret-token-1234", region: "eu" })

        // A new secret replaces the old; what is not sent stays; the account id follows the account.
        const rotated = yield* configs.update(principal, created.id, { config: { provider: "vault", token: "a-new-token-9876", account: "ACCOUNT-NEW-4321" } })
        expect(rotated.credentials).toEqual({ account: "************4321", token: "************9876", region: "eu" })
        const [moved] = yield* sql<{ account_id: string }>`SELECT account_id FROM telephony_configurations WHERE id = ${created.id}`
        expect(moved!.account_id).toBe("ACCOUNT-NEW-4321")

        const switched = yield* Effect.flip(configs.update(principal, created.id, { config: { provider: "simulator" } }))
        expect(switched).toMatchObject({ _tag: "TelephonyProviderImmutable", provider: "vault" })
      }))

    it.effect("every field at fault is reported; an unknown provider names the known ones", () =>
      Effect.gen(function*() {
        const configs = yield* TelephonyConfigs
        const { principal } = yield* seedOrganization()
        const missing = yield* Effect.flip(configs.create(principal, { name: "V", config: { provider: "vault", region: "us" }, is_default_outbound: false }))
        expect(missing._tag).toBe("InvalidTelephonyConfig")
        expect(missing._tag === "InvalidTelephonyConfig" && missing.issues.map((i) => i.loc.join(".")).sort()).toEqual(["body.config.account", "body.config.token"])
        const unknown = yield* Effect.flip(configs.create(principal, { name: "X", config: { provider: "carrier-pigeon" }, is_default_outbound: false }))
        expect(unknown._tag === "InvalidTelephonyConfig" && unknown.issues[0]!.msg).toBe("Unknown provider 'carrier-pigeon'; supported: simulator, vault")
      }))

    it.effect("names are unique per organization, not across organizations", () =>
      Effect.gen(function*() {
        const configs = yield* TelephonyConfigs
        const a = yield* seedOrganization()
        const b = yield* seedOrganization()
        yield* configs.create(a.principal, { name: "Dup", config: config(), is_default_outbound: false })
        const dup = yield* Effect.flip(configs.create(a.principal, { name: "Dup", config: config("OTHER-1") , is_default_outbound: false }))
        expect(dup).toMatchObject({ _tag: "TelephonyConfigurationNameTaken", name: "Dup" })
        const renamed = yield* configs.create(a.principal, { name: "Other", config: config("OTHER-2"), is_default_outbound: false })
        expect(yield* Effect.flip(configs.update(a.principal, renamed.id, { name: "Dup" }))).toMatchObject({ _tag: "TelephonyConfigurationNameTaken" })
        expect((yield* configs.create(b.principal, { name: "Dup", config: config(), is_default_outbound: false })).name).toBe("Dup")
        expect(yield* Effect.flip(configs.get(b.principal, renamed.id))).toMatchObject({ _tag: "TelephonyConfigurationNotFound" })
      }))

    it.effect("one default outbound configuration per organization, even under concurrent requests", () =>
      Effect.gen(function*() {
        const configs = yield* TelephonyConfigs
        const { principal } = yield* seedOrganization()
        const ids: Array<number> = []
        for (let i = 0; i < 5; i++) ids.push((yield* configs.create(principal, { name: `c${i}`, config: config(`AC${i}`), is_default_outbound: false })).id)
        yield* Effect.all([...ids, ...ids].map((id) => configs.setDefaultOutbound(principal, id)), { concurrency: "unbounded" })
        const defaults = (yield* configs.list(principal)).configurations.filter((c) => c.is_default_outbound)
        expect(defaults).toHaveLength(1)
        const fresh = yield* configs.create(principal, { name: "new default", config: config("ACnew"), is_default_outbound: true })
        expect((yield* configs.list(principal)).configurations.filter((c) => c.is_default_outbound).map((c) => c.id)).toEqual([fresh.id])
      }))

    it.effect("a configuration a campaign uses cannot be deleted; an unused one can", () =>
      Effect.gen(function*() {
        const configs = yield* TelephonyConfigs
        const { principal } = yield* seedOrganization()
        const used = yield* configs.create(principal, { name: "used", config: { provider: "simulator" }, is_default_outbound: true })
        const unused = yield* configs.create(principal, { name: "unused", config: config(), is_default_outbound: false })
        const agent = yield* (yield* Workflows).create(principal, { name: "Agent", workflow_definition: plainDefinition() })
        yield* (yield* Campaigns).create(principal, {
          name: "c",
          workflow_id: agent.id,
          source_type: "csv",
          source_id: yield* uploadCsv(principal, csvOf(["+14155550100"])),
          telephony_configuration_id: used.id
        })
        expect(yield* Effect.flip(configs.delete(principal, used.id))).toMatchObject({ _tag: "TelephonyConfigurationInUse", configurationId: used.id })
        expect(yield* configs.delete(principal, unused.id)).toEqual({ message: "Telephony configuration deleted" })
        expect(yield* Effect.flip(configs.get(principal, unused.id))).toMatchObject({ _tag: "TelephonyConfigurationNotFound" })
      }))
  })
}
