import type { WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema, TestClock } from "effect"
import { Simulator } from "../src/index.js"

const config = (input: Record<string, unknown> = {}) => Schema.decodeUnknownSync(Simulator.SimulatorConfig)(input)

const URL_WITH_QUERY = "https://calls.example.com/api/v1/telephony/callbacks/simulator/7?leg=a&retry=1"

const request = (body: unknown, url = URL_WITH_QUERY, headers: Record<string, string> = {}): WebhookRequest => ({
  method: "POST",
  url,
  headers: { "content-type": "application/json", ...headers },
  rawBody: new TextEncoder().encode(JSON.stringify(body))
})

const signed = (secret: string, body: unknown, url = URL_WITH_QUERY): WebhookRequest => {
  const unsigned = request(body, url)
  return { ...unsigned, headers: { ...unsigned.headers, "X-Simulator-Signature": Simulator.Callbacks.sign(secret, url, unsigned.rawBody) } }
}

describe("simulator webhooks", () => {
  it.scoped("with a webhook secret, a callback verifies only against the full public URL (query included) and its body", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const secured = config({ webhook_secret: "whsec" })
      const body = { call_id: "sim-1", event: "ringing" }
      const good = signed("whsec", body)
      expect(yield* sim.webhooks.verify({ config: secured, request: good })).toBe(true)
      // The same signature presented for the path alone, or for another query, does not verify.
      expect(yield* sim.webhooks.verify({ config: secured, request: { ...good, url: "/api/v1/telephony/callbacks/simulator/7" } })).toBe(false)
      expect(yield* sim.webhooks.verify({ config: secured, request: { ...good, url: URL_WITH_QUERY.replace("retry=1", "retry=2") } })).toBe(false)
      expect(yield* sim.webhooks.verify({ config: secured, request: { ...good, rawBody: new TextEncoder().encode("{}") } })).toBe(false)
      expect(yield* sim.webhooks.verify({ config: secured, request: signed("other", body) })).toBe(false)
      expect(yield* sim.webhooks.verify({ config: secured, request: request(body) })).toBe(false)
      expect(yield* sim.webhooks.verify({ config: secured, request: request(body, URL_WITH_QUERY, { "x-simulator-signature": "zz" }) })).toBe(false)
      // Without a secret the simulator trusts every callback, as before.
      expect(yield* sim.webhooks.verify({ config: config(), request: request(body) })).toBe(true)
    }))

  it.scoped("parses a status callback into its normalized event at the clock's time", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      yield* TestClock.setTime(5000)
      const events = yield* sim.webhooks.parseStatus({ config: config(), request: request({ call_id: "sim-x", event: "answered" }) })
      expect(events).toEqual([{ type: "answered", providerCallId: "sim-x", at: 5000 }])
    }))

  it.scoped("parses an inbound call into its routing key, and refuses what is not one", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const call = yield* sim.webhooks.parseInbound({
        request: request({ account_id: "lab-2", call_id: "in-1", from: "+14155550111", to: "+1 415 555 0100" })
      })
      expect(call).toEqual({ accountId: "lab-2", providerCallId: "in-1", from: "+14155550111", to: "+1 415 555 0100" })
      const refused = yield* Effect.flip(sim.webhooks.parseInbound({ request: request({ call_id: "in-1", to: "+1" }) }))
      expect(refused).toMatchObject({ _tag: "TelephonyError", provider: "simulator", retryable: false })
      expect(refused.message).toMatch(/^bad simulator inbound call/)
    }))

  it.scoped("answers each instruction with its document", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make()
      const connect = sim.webhooks.answer({
        config: config(),
        instruction: { _tag: "ConnectMediaStream", url: "wss://calls.example.com/media/1", parameters: { attempt_id: "1" } }
      })
      expect(connect).toEqual({
        status: 200,
        contentType: "application/json",
        body: JSON.stringify({ action: "connect", url: "wss://calls.example.com/media/1", parameters: { attempt_id: "1" } })
      })
      expect(JSON.parse(sim.webhooks.answer({ config: undefined, instruction: { _tag: "KeepOpen" } }).body)).toEqual({ action: "keep_open" })
      expect(JSON.parse(sim.webhooks.answer({ config: undefined, instruction: { _tag: "Reject", reason: "unknown number" } }).body))
        .toEqual({ action: "reject", reason: "unknown number" })
    }))
})
