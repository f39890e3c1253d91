/**
 * A provider that keeps a connection per configuration (`connect`, as ARI keeps its events
 * WebSocket): the server opens it when the configuration is created (incoming calls need it before
 * any outbound call) or at the latest before its first call, keeps it for the next ones, opens a new
 * one when the configuration changes and closes it when the configuration is deleted.
 */
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { expect, layer } from "@effect/vitest"
import { Effect, Schema, TestClock } from "effect"
import { plainDefinition } from "./DispatchHarness.js"
import { call, seedOrganization, TestApp } from "./Harness.js"

const log: Array<string> = []
let placed = 0

const linked: TelephonyProvider<{ readonly endpoint: string }> = {
  name: "linked",
  displayName: "Linked (test)",
  configSchema: Schema.Struct({ endpoint: Schema.String }),
  fields: [{ name: "endpoint", label: "Endpoint", type: "text", required: true, sensitive: false }],
  accountId: (config) => config.endpoint,
  connect: (config) =>
    Effect.acquireRelease(
      Effect.sync(() => void log.push(`open ${config.endpoint}`)),
      () => Effect.sync(() => void log.push(`close ${config.endpoint}`))
    ),
  calls: {
    place: () => Effect.sync(() => ({ providerCallId: `linked-${++placed}` })),
    hangUp: () => Effect.void,
    get: () => Effect.succeed({ _tag: "InProgress" })
  }
}

layer(TestApp("sqlite", { telephonyProviders: [linked] }), { timeout: "60 seconds" })("provider connections", (it) => {
  it.effect("one connection per configuration, kept across calls, renewed when the configuration changes", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const configuration = yield* call("POST", "/api/v1/organizations/telephony-configs", {
        apiKey: org.apiKey,
        body: { name: "pbx", is_default_outbound: true, config: { provider: "linked", endpoint: "pbx-1" } }
      })
      expect(configuration.status).toBe(200)
      const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
        apiKey: org.apiKey,
        body: { name: "Caller", workflow_definition: plainDefinition() }
      })
      const dial = (number: string) =>
        call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, { apiKey: org.apiKey, body: { phone_number: number } })

      expect((yield* dial("+14155550100")).status).toBe(200)
      expect((yield* dial("+14155550101")).status).toBe(200)
      expect(placed).toBe(2)
      expect(log).toEqual(["open pbx-1"])

      yield* TestClock.adjust(1000)
      const moved = yield* call("PUT", `/api/v1/organizations/telephony-configs/${configuration.body.id}`, {
        apiKey: org.apiKey,
        body: { config: { provider: "linked", endpoint: "pbx-2" } }
      })
      expect(moved.status).toBe(200)
      expect((yield* dial("+14155550102")).status).toBe(200)
      expect(log).toEqual(["open pbx-1", "close pbx-1", "open pbx-2"])
    }))

  it.effect("opened as soon as the configuration exists, closed when it is deleted", () =>
    Effect.gen(function*() {
      log.length = 0
      const org = yield* seedOrganization()
      const configuration = yield* call("POST", "/api/v1/organizations/telephony-configs", {
        apiKey: org.apiKey,
        body: { name: "inbound pbx", config: { provider: "linked", endpoint: "pbx-in" } }
      })
      expect(configuration.status).toBe(200)
      expect(log).toEqual(["open pbx-in"])
      // The sweep keeps it, and does not open it twice.
      yield* TestClock.adjust("31 seconds")
      expect(log).toEqual(["open pbx-in"])
      const deleted = yield* call("DELETE", `/api/v1/organizations/telephony-configs/${configuration.body.id}`, { apiKey: org.apiKey })
      expect(deleted.status).toBe(200)
      expect(log).toEqual(["open pbx-in", "close pbx-in"])
    }))
})
