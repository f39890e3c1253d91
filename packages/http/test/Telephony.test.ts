import { ProviderMetadata, TelephonyConfigurationListItem } from "@agentline/api/telephony/TelephonyConfig"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { plainDefinition } from "./DispatchHarness.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { decode, issuesOf, locsOf } from "./Wire.js"

const ConfigurationList = Schema.Struct({ configurations: Schema.Array(TelephonyConfigurationListItem) })

const twilio = (sid = "AC0123456789abcdef0123456789abcdef", token = "super-secret-auth-token-1234") => ({
  provider: "twilio",
  account_sid: sid,
  auth_token: token
})

const createConfig = (apiKey: string, body: Record<string, unknown>) =>
  Effect.map(call("POST", "/api/v1/organizations/telephony-configs", { apiKey, body }), (r) => r)

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`Telephony configurations and phone numbers [${dialect}]`, (it) => {
    it.effect("metadata lists the eight providers and the simulator with their fields", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const reply = yield* call("GET", "/api/v1/organizations/telephony-providers/metadata", { apiKey: org.apiKey })
        expect(reply.status).toBe(200)
        const { providers } = decode(ProviderMetadata, reply.body)
        expect(providers.map((p) => p.provider)).toEqual(
          ["ari", "cloudonix", "exotel", "plivo", "simulator", "telnyx", "twilio", "vobiz", "vonage"]
        )
        const ari = providers.find((p) => p.provider === "ari")
        expect(ari?.fields.map((f) => [f.name, f.required, f.sensitive])).toEqual([
          ["ari_endpoint", true, false],
          ["app_name", true, false],
          ["app_password", true, true],
          ["ws_client_name", false, false],
          ["dial_string", false, false]
        ])
      }))

    it.effect("secrets are masked in responses; changing the provider is 400 (the rules: core/test/telephony/TelephonyConfigs.test.ts)", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const created = yield* createConfig(org.apiKey, { name: "Main", config: { ...twilio(), from_numbers: ["+14155550100"] } })
        expect(created.status).toBe(200)
        expect(created.body).toMatchObject({ name: "Main", provider: "twilio", is_default_outbound: false })
        expect(created.body.credentials.auth_token).toBe("*".repeat(24) + "1234")
        expect(created.body.credentials.account_sid).toMatch(/^\*+cdef$/)
        expect(created.body.credentials).not.toHaveProperty("from_numbers")
        const fetched = yield* call("GET", `/api/v1/organizations/telephony-configs/${created.body.id}`, { apiKey: org.apiKey })
        expect(fetched.body).toEqual(created.body)
        const switched = yield* call("PUT", `/api/v1/organizations/telephony-configs/${created.body.id}`, {
          apiKey: org.apiKey,
          body: { config: { provider: "plivo", auth_id: "x", auth_token: "y" } }
        })
        expect(switched.status).toBe(400)
        expect(switched.body.detail).toContain("Provider cannot be changed")
      }))

    it.effect("every missing field is reported; names are 1–64 characters and unique per organization", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const missing = yield* createConfig(org.apiKey, { name: "Vonage", config: { provider: "vonage", application_id: "app" } })
        expect(missing.status).toBe(422)
        expect([...locsOf(missing.body)].sort()).toEqual(
          ["body.config.api_key", "body.config.api_secret", "body.config.private_key"]
        )
        const unknown = yield* createConfig(org.apiKey, { name: "X", config: { provider: "carrier-pigeon" } })
        expect(unknown.status).toBe(422)
        expect(unknown.body.detail[0].loc).toEqual(["body", "config", "provider"])
        const long = yield* createConfig(org.apiKey, { name: "x".repeat(65), config: twilio() })
        expect(long.status).toBe(422)
        expect((yield* createConfig(org.apiKey, { name: "Dup", config: twilio() })).status).toBe(200)
        const dup = yield* createConfig(org.apiKey, { name: "Dup", config: twilio() })
        expect(dup.status).toBe(409)
        const other = yield* seedOrganization()
        expect((yield* createConfig(other.apiKey, { name: "Dup", config: twilio() })).status).toBe(200)
      }))

    it.effect("set-default-outbound answers the configuration; the list shows the default and the number count", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const first = yield* createConfig(org.apiKey, { name: "first", config: twilio("AC1"), is_default_outbound: true })
        const second = yield* createConfig(org.apiKey, { name: "second", config: twilio("AC2") })
        const set = yield* call("POST", `/api/v1/organizations/telephony-configs/${second.body.id}/set-default-outbound`, { apiKey: org.apiKey })
        expect(set.status).toBe(200)
        expect(set.body).toMatchObject({ id: second.body.id, is_default_outbound: true })
        const list = yield* call("GET", "/api/v1/organizations/telephony-configs", { apiKey: org.apiKey })
        expect(decode(ConfigurationList, list.body).configurations.map((c) => [c.id, c.is_default_outbound])).toEqual([[first.body.id, false], [second.body.id, true]])
        expect(Object.keys(list.body.configurations[0]).sort()).toEqual(
          ["created_at", "id", "is_default_outbound", "name", "phone_number_count", "provider", "updated_at"]
        )
      }))

    it.effect("phone numbers over the wire: shapes, 422 items, 409 and 404 (the rules: core/test/phone-numbers/PhoneNumbers.test.ts)", () =>
      Effect.gen(function*() {
        const a = yield* seedOrganization()
        const b = yield* seedOrganization()
        const configA = (yield* createConfig(a.apiKey, { name: "A", config: twilio("ACshared") })).body.id
        const configB = (yield* createConfig(b.apiKey, { name: "B", config: twilio("ACshared") })).body.id
        const base = (config: number) => `/api/v1/organizations/telephony-configs/${config}/phone-numbers`

        const national = yield* call("POST", base(configA), { apiKey: a.apiKey, body: { address: "020 7946 0018", country_code: "gb", label: "London" } })
        expect(national.status).toBe(200)
        expect(national.body).toMatchObject({
          address: "020 7946 0018", address_normalized: "+442079460018", address_type: "pstn", country_code: "GB",
          is_active: true, is_default_caller_id: false, extra_metadata: {}, inbound_workflow_id: null, provider_sync: null
        })
        const sip = yield* call("POST", base(configA), { apiKey: a.apiKey, body: { address: "SIP:Desk@PBX.Example.com:5060" } })
        expect(sip.body).toMatchObject({ address_type: "sip_uri", address_normalized: "sip:Desk@pbx.example.com" })
        const ext = yield* call("POST", base(configA), { apiKey: a.apiKey, body: { address: "1001" } })
        expect(ext.body.address_type).toBe("sip_extension")

        const invalid = yield* call("POST", base(configA), {
          apiKey: a.apiKey,
          body: { address: "x".repeat(256), country_code: "GBR", label: "y".repeat(65) }
        })
        expect(invalid.status).toBe(422)
        expect(issuesOf(invalid.body).map((d) => d.loc.at(-1)).sort()).toEqual(["address", "country_code", "label"])
        const noCountry = yield* call("POST", base(configA), { apiKey: a.apiKey, body: { address: "4155550100" } })
        expect(noCountry.status).toBe(422)
        expect(noCountry.body.detail[0].msg).toContain("country_code")

        const sameOrg = yield* call("POST", base(configA), { apiKey: a.apiKey, body: { address: "+44 20 7946 0018" } })
        expect(sameOrg.status).toBe(409)
        const otherOrg = yield* call("POST", base(configB), { apiKey: b.apiKey, body: { address: "+442079460018" } })
        expect(otherOrg.status).toBe(409)
        expect(otherOrg.body.detail).not.toContain(a.name)

        const first = yield* call("POST", `${base(configA)}/${national.body.id}/set-default-caller`, { apiKey: a.apiKey })
        expect(first.status).toBe(200)
        expect(first.body).toMatchObject({ id: national.body.id, is_default_caller_id: true })
        expect((yield* call("POST", `${base(configA)}/999999/set-default-caller`, { apiKey: a.apiKey })).status).toBe(404)

        const agent = yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: a.apiKey, body: { name: "Receptionist", workflow_definition: plainDefinition() } })
        const bound = yield* call("PUT", `${base(configA)}/${national.body.id}`, { apiKey: a.apiKey, body: { inbound_workflow_id: agent.body.id } })
        expect(bound.status).toBe(200)
        expect(bound.body).toMatchObject({ inbound_workflow_id: agent.body.id, inbound_workflow_name: "Receptionist" })
        expect(bound.body.provider_sync.ok).toBe(false)
        expect(typeof bound.body.provider_sync.message).toBe("string")
        const otherAgent = yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: b.apiKey, body: { name: "Theirs", workflow_definition: plainDefinition() } })
        const foreign = yield* call("PUT", `${base(configA)}/${national.body.id}`, { apiKey: a.apiKey, body: { inbound_workflow_id: otherAgent.body.id } })
        expect(foreign.status).toBe(404)
        const immutable = yield* call("PUT", `${base(configA)}/${national.body.id}`, { apiKey: a.apiKey, body: { address: "+14155550100" } })
        expect(immutable.status).toBe(400)

        expect((yield* call("GET", base(configA), { apiKey: b.apiKey })).status).toBe(404)
        expect((yield* call("GET", `/api/v1/organizations/telephony-configs/${configA}`, { apiKey: b.apiKey })).status).toBe(404)
        expect((yield* call("DELETE", `${base(configA)}/${ext.body.id}`, { apiKey: b.apiKey })).status).toBe(404)
        const deleted = yield* call("DELETE", `${base(configA)}/${ext.body.id}`, { apiKey: a.apiKey })
        expect(deleted).toEqual({ status: 200, body: { message: "Phone number deleted", provider_sync: null } })
        const list = yield* call("GET", "/api/v1/organizations/telephony-configs", { apiKey: a.apiKey })
        expect(decode(ConfigurationList, list.body).configurations.find((c) => c.id === configA)?.phone_number_count).toBe(2)
      }))

    it.effect("a number bound to an agent points the provider at the inbound route (provider_sync); deleting a referenced configuration is 409", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const sim = (yield* createConfig(org.apiKey, { name: "sim", config: { provider: "simulator" }, is_default_outbound: true })).body.id
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: org.apiKey, body: { name: "In", workflow_definition: plainDefinition() } })
        const number = yield* call("POST", `/api/v1/organizations/telephony-configs/${sim}/phone-numbers`, {
          apiKey: org.apiKey,
          body: { address: "+14155550123", inbound_workflow_id: agent.body.id }
        })
        expect(number.status).toBe(200)
        expect(number.body.provider_sync).toEqual({
          ok: true,
          message: "simulated: inbound calls to +14155550123 go to http://127.0.0.1:0/api/v1/telephony/inbound/simulator"
        })
        const archived = yield* call("PUT", `/api/v1/workflow/${agent.body.id}/status`, { apiKey: org.apiKey, body: { status: "archived" } })
        expect(archived.status).toBe(200)
        const refused = yield* call("POST", `/api/v1/organizations/telephony-configs/${sim}/phone-numbers`, {
          apiKey: org.apiKey,
          body: { address: "+14155550124", inbound_workflow_id: agent.body.id }
        })
        expect(refused.status).toBe(409)

        const unused = (yield* createConfig(org.apiKey, { name: "unused", config: twilio() })).body.id
        expect((yield* call("DELETE", `/api/v1/organizations/telephony-configs/${unused}`, { apiKey: org.apiKey })).body).toEqual({
          message: "Telephony configuration deleted"
        })
        const sql = yield* SqlClient.SqlClient
        const now = new Date().toISOString()
        yield* sql`INSERT INTO campaigns (organization_id, workflow_id, telephony_configuration_id, name, state, source_type, source_id,
                   retry_config, circuit_breaker, logs, created_at, updated_at)
                   VALUES (${org.principal.organizationId}, ${agent.body.id}, ${sim}, 'c', 'draft', 'csv', 'k', '{}', '{}', '[]', ${now}, ${now})`
        const inUse = yield* call("DELETE", `/api/v1/organizations/telephony-configs/${sim}`, { apiKey: org.apiKey })
        expect(inUse.status).toBe(409)
        expect(inUse.body.detail).toContain("referenced by one or more campaigns")
      }))
  })
}
