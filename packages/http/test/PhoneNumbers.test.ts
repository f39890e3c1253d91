/**
 * Phone numbers: a refused request changes nothing (defect 9.3: a 409 on create had already cleared
 * the configuration's default caller).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

const simulator = { provider: "simulator" }

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`Phone numbers [${dialect}]`, (it) => {
    const setup = Effect.gen(function*() {
      const org = yield* seedOrganization()
      const config = yield* call("POST", "/api/v1/organizations/telephony-configs", {
        apiKey: org.apiKey,
        body: { name: "Main", config: simulator }
      })
      expect(config.status).toBe(200)
      const base = `/api/v1/organizations/telephony-configs/${config.body.id}/phone-numbers`
      const numbers = () =>
        Effect.map(call("GET", base, { apiKey: org.apiKey }), (r) => r.body.phone_numbers as Array<any>)
      return { org, base, numbers }
    })

    it.effect("a create refused with 409 leaves the default caller where it was", () =>
      Effect.gen(function*() {
        const { base, numbers, org } = yield* setup
        const first = yield* call("POST", base, {
          apiKey: org.apiKey,
          body: { address: "+14155550100", is_default_caller_id: true }
        })
        expect(first.status).toBe(200)
        expect(first.body.is_default_caller_id).toBe(true)
        const second = yield* call("POST", base, { apiKey: org.apiKey, body: { address: "+14155550101" } })
        const before = yield* numbers()

        const duplicate = yield* call("POST", base, {
          apiKey: org.apiKey,
          body: { address: "+1 415 555 0101", is_default_caller_id: true }
        })
        expect(duplicate.status).toBe(409)
        expect(yield* numbers()).toEqual(before)
        expect(before.filter((n) => n.is_default_caller_id).map((n) => n.id)).toEqual([first.body.id])
        expect(second.body.is_default_caller_id).toBe(false)
      }))

    it.effect("a new default caller takes the default from the old one in the same request", () =>
      Effect.gen(function*() {
        const { base, numbers, org } = yield* setup
        yield* call("POST", base, { apiKey: org.apiKey, body: { address: "+14155550110", is_default_caller_id: true } })
        const next = yield* call("POST", base, {
          apiKey: org.apiKey,
          body: { address: "+14155550111", is_default_caller_id: true }
        })
        expect(next.status).toBe(200)
        expect(next.body.is_default_caller_id).toBe(true)
        expect((yield* numbers()).filter((n) => n.is_default_caller_id).map((n) => n.id)).toEqual([next.body.id])
      }))

    it.effect("refused updates and default changes leave every number as it was", () =>
      Effect.gen(function*() {
        const { base, numbers, org } = yield* setup
        const number = yield* call("POST", base, {
          apiKey: org.apiKey,
          body: { address: "+14155550120", is_default_caller_id: true, label: "desk" }
        })
        yield* call("POST", base, { apiKey: org.apiKey, body: { address: "+14155550121" } })
        const before = yield* numbers()

        const badAddress = yield* call("PUT", `${base}/${number.body.id}`, {
          apiKey: org.apiKey,
          body: { address: "+14155550999", label: "changed" }
        })
        expect(badAddress.status).toBe(400)
        const badAgent = yield* call("PUT", `${base}/${number.body.id}`, {
          apiKey: org.apiKey,
          body: { inbound_workflow_id: 999_999, label: "changed" }
        })
        expect(badAgent.status).toBe(404)
        const missing = yield* call("POST", `${base}/999999/set-default-caller`, { apiKey: org.apiKey })
        expect(missing.status).toBe(404)
        expect(yield* numbers()).toEqual(before)
      }))
  })
}
