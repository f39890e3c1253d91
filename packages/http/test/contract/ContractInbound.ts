/**
 * The inbound part of the contract: numbers bound to an agent are pointed at this server
 * (`provider_sync`), incoming calls are routed by (provider, account, number) to their agent and
 * connected to a media stream; unknown, unbound and archived numbers get a polite refusal, an
 * organization over its limit a busy signal, a forged request 401.
 */
import { Organizations } from "@agentline/core/organizations/Organizations"
import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { call } from "../Harness.js"
import type { ContractIt } from "./ContractMedia.js"
import { eventually } from "./ContractMedia.js"
import { type Fake, freshNumber, runOf, setupCarrier } from "./Contract.js"
import { recordings } from "./Loopback.js"

const runOfCall = (providerCallId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ run_id: number }>`SELECT run_id FROM call_attempts WHERE provider_call_id = ${providerCallId}`
    return rows.length === 0 ? undefined : Number(rows[0]!.run_id)
  }).pipe(Effect.orDie)

export const inboundTests = (it: ContractIt, fakeTag: typeof Fake) => {
  /** An organization with a number bound to its agent; the provider was pointed at this server. */
  const boundNumber = Effect.gen(function*() {
    const { carrier, fake, publicUrl } = yield* fakeTag
    const setup = yield* setupCarrier()
    const address = freshNumber("+1415999")
    fake.own(address)
    const number = yield* call("POST", `/api/v1/organizations/telephony-configs/${setup.configurationId}/phone-numbers`, {
      apiKey: setup.apiKey,
      body: { address, inbound_workflow_id: setup.agent.id }
    })
    expect(number.status).toBe(200)
    // Without an API for it, the operator does by hand what provider_sync told.
    if (carrier.inboundByApi === false) fake.route(address, `${publicUrl}/api/v1/telephony/inbound/${carrier.provider}`)
    return { setup, address, number: number.body }
  })

  it.effect("provider_sync points a bound number at the inbound route and clears it when unbound; a provider error is a warning", () =>
    Effect.gen(function*() {
      const { carrier, fake, publicUrl } = yield* fakeTag
      const { address, number, setup } = yield* boundNumber
      const inboundUrl = `${publicUrl}/api/v1/telephony/inbound/${carrier.provider}`
      const path = `/api/v1/organizations/telephony-configs/${setup.configurationId}/phone-numbers/${number.id}`
      if (carrier.inboundByApi === false) {
        // A warning that names the exact URL to set by hand; the number is bound all the same.
        expect(number.provider_sync.ok).toBe(false)
        expect(number.provider_sync.message).toContain(inboundUrl)
        expect(number.inbound_workflow_id).toBe(setup.agent.id)
        expect(fake.voiceUrl(address)).toBe(inboundUrl)
        const unbound = yield* call("PUT", path, { apiKey: setup.apiKey, body: { inbound_workflow_id: null } })
        expect(unbound.body.provider_sync.ok).toBe(false)
        expect(unbound.body.inbound_workflow_id).toBe(null)
        fake.route(address, null)
        const rebound = yield* call("PUT", path, { apiKey: setup.apiKey, body: { inbound_workflow_id: setup.agent.id } })
        expect(rebound.status).toBe(200)
        expect(rebound.body.provider_sync).toMatchObject({ ok: false })
        expect(rebound.body.inbound_workflow_id).toBe(setup.agent.id)
        return
      }
      // A provider without per-number webhooks (Asterisk's dialplan) has no URL to set or clear.
      const byDialplan = carrier.numbersRoutedByDialplan === true
      expect(number.provider_sync.ok).toBe(true)
      if (!byDialplan) expect(fake.voiceUrl(address)).toBe(inboundUrl)
      const unbound = yield* call("PUT", path, { apiKey: setup.apiKey, body: { inbound_workflow_id: null } })
      expect(unbound.body.provider_sync.ok).toBe(true)
      if (!byDialplan) expect(fake.voiceUrl(address)).toBe(null)

      fake.failNext(500, 1)
      const failing = yield* call("PUT", path, { apiKey: setup.apiKey, body: { inbound_workflow_id: setup.agent.id } })
      expect(failing.status).toBe(200)
      expect(failing.body.provider_sync.ok).toBe(false)
      expect(failing.body.provider_sync.message).not.toContain(carrier.provider === "twilio" ? "contract-auth-token" : "\u0000")
      expect(failing.body.inbound_workflow_id).toBe(setup.agent.id)
      if (!byDialplan) expect(fake.voiceUrl(address)).toBe(null)
    }))

  it.effect("an incoming call to a bound number is an inbound run of its agent, connected to a media stream, finished when the caller hangs up", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* fakeTag
      const { address, setup } = yield* boundNumber
      const caller = freshNumber("+1415666")
      const incoming = yield* Effect.promise(() => fake.placeInbound({ to: address, from: caller }))
      expect(incoming).toMatchObject({ status: 200, answer: "stream" })
      const leg = yield* Effect.promise(() => fake.media(incoming.providerCallId))
      yield* eventually(() => recordings.has(incoming.providerCallId), "the runtime to get the call")
      const runId = (yield* runOfCall(incoming.providerCallId))!
      const run = yield* runOf(setup, runId)
      expect(run).toMatchObject({ call_type: "inbound", mode: carrier.provider, is_completed: false })
      expect(run.initial_context).toMatchObject({ caller_number: caller, called_number: address, direction: "inbound" })
      expect(leg.isOpen()).toBe(true)
      incoming.hangUp()
      yield* eventually(() => !leg.isOpen(), "the stream to close")
      const deadline = Date.now() + 15_000
      let finished = yield* runOf(setup, runId)
      while (finished.is_completed !== true && Date.now() < deadline) {
        yield* Effect.sleep("50 millis")
        finished = yield* runOf(setup, runId)
      }
      expect(finished.gathered_context.outcome).toBe("completed")
    }))

  it.effect("unknown, unbound and archived numbers are refused politely; a forged webhook is 401", () =>
    Effect.gen(function*() {
      const { carrier, fake, publicUrl } = yield* fakeTag
      const inboundUrl = `${publicUrl}/api/v1/telephony/inbound/${carrier.provider}`
      const caller = freshNumber("+1415666")

      const unknown = freshNumber("+1415999")
      fake.route(unknown, inboundUrl)
      expect(yield* Effect.promise(() => fake.placeInbound({ to: unknown, from: caller }))).toMatchObject({ status: 200, answer: "refused" })

      const { address, number, setup } = yield* boundNumber
      expect(yield* Effect.promise(() => fake.placeInbound({ to: address, from: caller, signature: "wrong" }))).toMatchObject({ status: 401 })

      const path = `/api/v1/organizations/telephony-configs/${setup.configurationId}/phone-numbers/${number.id}`
      expect((yield* call("PUT", path, { apiKey: setup.apiKey, body: { inbound_workflow_id: null } })).status).toBe(200)
      fake.route(address, inboundUrl) // still pointed at us from the console
      expect(yield* Effect.promise(() => fake.placeInbound({ to: address, from: caller }))).toMatchObject({ status: 200, answer: "refused" })

      expect((yield* call("PUT", path, { apiKey: setup.apiKey, body: { inbound_workflow_id: setup.agent.id } })).status).toBe(200)
      expect((yield* call("PUT", `/api/v1/workflow/${setup.agent.id}/status`, { apiKey: setup.apiKey, body: { status: "archived" } })).status).toBe(200)
      expect(yield* Effect.promise(() => fake.placeInbound({ to: address, from: caller }))).toMatchObject({ status: 200, answer: "refused" })
    }))

  it.effect("incoming calls count against the organization's concurrency limit: over it, a busy signal", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* fakeTag
      const { address, setup } = yield* boundNumber
      yield* (yield* Organizations).setConcurrentCallLimit(setup.principal.organizationId, 1)
      const first = yield* Effect.promise(() => fake.placeInbound({ to: address, from: freshNumber("+1415666") }))
      expect(first.answer).toBe("stream")
      const second = yield* Effect.promise(() => fake.placeInbound({ to: address, from: freshNumber("+1415666") }))
      expect(second).toMatchObject({ status: 200, answer: carrier.busySignal === false ? "refused" : "busy" })
      first.hangUp()
    }))
}
