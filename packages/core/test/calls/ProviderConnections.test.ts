/**
 * A provider that keeps a connection per configuration (`connect`, as ARI keeps its events WebSocket):
 * it is opened when the configuration is created (incoming calls need it before any outbound call) or
 * at the latest before its first call, kept for the next ones (the sweep does not open it twice),
 * opened anew when the configuration changes and closed when the configuration is deleted.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Schema, TestClock } from "effect"
import { OutboundRouting } from "../../src/telephony/OutboundRouting.js"
import { TelephonyConfigs } from "../../src/telephony/TelephonyConfigs.js"
import type { TelephonyProvider } from "../../src/telephony/TelephonyProvider.js"
import { seedOrganization, TestServices } from "../Harness.js"

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

/** One outbound call through the organization's default configuration. */
const dial = (organizationId: number, to: string) =>
  Effect.gen(function*() {
    const route = yield* (yield* OutboundRouting).resolve(organizationId, null)
    return yield* route.calls.place({ to, from: undefined, attemptId: placed + 1, onEvent: () => Effect.void })
  })

layer(TestServices("sqlite", { providers: [linked] }), { timeout: "60 seconds" })("provider connections", (it) => {
  it.effect("one connection per configuration, kept across calls, renewed when the configuration changes", () =>
    Effect.gen(function*() {
      const configs = yield* TelephonyConfigs
      const { principal } = yield* seedOrganization()
      const configuration = yield* configs.create(principal, { name: "pbx", is_default_outbound: true, config: { provider: "linked", endpoint: "pbx-1" } })
      expect(log).toEqual(["open pbx-1"])
      yield* dial(principal.organizationId, "+14155550100")
      yield* dial(principal.organizationId, "+14155550101")
      expect(placed).toBe(2)
      expect(log).toEqual(["open pbx-1"])

      yield* TestClock.adjust(1000)
      yield* configs.update(principal, configuration.id, { config: { provider: "linked", endpoint: "pbx-2" } })
      yield* dial(principal.organizationId, "+14155550102")
      expect(log).toEqual(["open pbx-1", "close pbx-1", "open pbx-2"])
    }))

  it.effect("opened as soon as the configuration exists, closed when it is deleted", () =>
    Effect.gen(function*() {
      log.length = 0
      const configs = yield* TelephonyConfigs
      const { principal } = yield* seedOrganization()
      const configuration = yield* configs.create(principal, { name: "inbound pbx", is_default_outbound: false, config: { provider: "linked", endpoint: "pbx-in" } })
      expect(log).toEqual(["open pbx-in"])
      // The sweep (every third of the harness's 600 s lease) keeps it, and does not open it twice.
      yield* TestClock.adjust("250 seconds")
      expect(log).toEqual(["open pbx-in"])
      yield* configs.delete(principal, configuration.id)
      expect(log).toEqual(["open pbx-in", "close pbx-in"])
    }))
})
