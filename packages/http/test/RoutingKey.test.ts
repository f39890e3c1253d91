/**
 * Defect 9.6: (provider, account id, address) is unique across organizations for every provider,
 * ARI included — its account id is the ARI endpoint and user (it had none, so two organizations could
 * claim the same extension on the same Asterisk box and inbound calls could not be routed).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

const ari = (app_name: string, ari_endpoint = "http://pbx.invalid:8088") => ({
  provider: "ari",
  ari_endpoint,
  app_name,
  app_password: "ari-password"
})

const configuration = (apiKey: string, name: string, config: Record<string, unknown>) =>
  Effect.map(call("POST", "/api/v1/organizations/telephony-configs", { apiKey, body: { name, config } }), (r) => r.body.id as number)

const addNumber = (apiKey: string, configurationId: number, address: string) =>
  call("POST", `/api/v1/organizations/telephony-configs/${configurationId}/phone-numbers`, { apiKey, body: { address } })

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`Inbound routing keys [${dialect}]`, (it) => {
    it.effect("ARI: one Asterisk box and user cannot have the same number in two organizations; another user or box can", () =>
      Effect.gen(function*() {
        const a = yield* seedOrganization()
        const b = yield* seedOrganization()
        const configA = yield* configuration(a.apiKey, "pbx", ari("agentline"))
        // The same box spelled differently is the same account.
        const configB = yield* configuration(b.apiKey, "pbx", ari("agentline", "http://PBX.invalid:8088/"))
        expect((yield* addNumber(a.apiKey, configA, "1001")).status).toBe(200)
        const taken = yield* addNumber(b.apiKey, configB, "1001")
        expect(taken.status).toBe(409)
        expect(taken.body.detail).toContain("another organization")
        expect((yield* addNumber(b.apiKey, configB, "+14155550100")).status).toBe(200)

        const otherUser = yield* configuration(b.apiKey, "pbx-2", ari("tenant-b"))
        expect((yield* addNumber(b.apiKey, otherUser, "1001")).status).toBe(200)
        const c = yield* seedOrganization()
        const d = yield* seedOrganization()
        const otherBox = yield* configuration(c.apiKey, "pbx", ari("agentline", "http://pbx-2.invalid:8088"))
        const sameOtherBox = yield* configuration(d.apiKey, "pbx", ari("agentline", "http://pbx-2.invalid:8088"))
        expect((yield* addNumber(c.apiKey, otherBox, "1001")).status).toBe(200)
        expect((yield* addNumber(d.apiKey, sameOtherBox, "1001")).status).toBe(409)
      }))

    it.effect("moving an ARI configuration onto a box and user whose number another organization has is refused", () =>
      Effect.gen(function*() {
        const a = yield* seedOrganization()
        const b = yield* seedOrganization()
        const configA = yield* configuration(a.apiKey, "pbx", ari("shared"))
        const configB = yield* configuration(b.apiKey, "pbx", ari("own"))
        expect((yield* addNumber(a.apiKey, configA, "2002")).status).toBe(200)
        expect((yield* addNumber(b.apiKey, configB, "2002")).status).toBe(200)
        const moved = yield* call("PUT", `/api/v1/organizations/telephony-configs/${configB}`, {
          apiKey: b.apiKey,
          body: { config: ari("shared") }
        })
        expect(moved.status).toBe(409)
      }))

    it.effect("the simulator has an account too: the same simulated number in two organizations needs two accounts", () =>
      Effect.gen(function*() {
        const a = yield* seedOrganization()
        const b = yield* seedOrganization()
        const simA = yield* configuration(a.apiKey, "sim", { provider: "simulator" })
        const simB = yield* configuration(b.apiKey, "sim", { provider: "simulator" })
        const labB = yield* configuration(b.apiKey, "lab", { provider: "simulator", account_id: "lab-b" })
        expect((yield* addNumber(a.apiKey, simA, "+14155550177")).status).toBe(200)
        expect((yield* addNumber(b.apiKey, simB, "+14155550177")).status).toBe(409)
        expect((yield* addNumber(b.apiKey, labB, "+14155550177")).status).toBe(200)
      }))
  })
}
