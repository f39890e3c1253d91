/**
 * The contract's incoming calls and numbers: `inbound.configure` points a number's voice webhook at
 * the inbound route and clears it (a provider error is a report, never a failure); an incoming call
 * is routed by (account, number), verified, answered with a media stream whose audio flows, and ends
 * when the caller hangs up; a number not bound here is refused politely, a forged webhook gets 401, a
 * busy line the provider's busy signal.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { routingAddress } from "./ContractHost.js"
import { roundTrip, started } from "./ContractMedia.js"
import { Contract, type ContractIt, eventually, freshNumber } from "./ContractSetup.js"

/** A number of the fake's account pointed at the stand-in and bound to an agent there. */
const boundNumber = Effect.gen(function*() {
  const { adapter, carrier, config, fake, host } = yield* Contract
  const address = freshNumber("+1415999")
  fake.own(address)
  yield* adapter.inbound!.configure({ config: config({ machineDetection: false }), address, webhookUrl: host.inboundUrl })
  // Without an API for it, the operator does by hand what the report said.
  if (carrier.inboundByApi === false) fake.route(address, host.inboundUrl)
  host.numbers.add(address)
  return address
})

export const inboundTests = (it: ContractIt) => {
  it.effect("number configuration: a number's voice webhook points at the inbound route and is cleared; a provider error is a report", () =>
    Effect.gen(function*() {
      const { adapter, body, carrier, config, fake, host } = yield* Contract
      const inbound = adapter.inbound!
      const address = freshNumber("+1415999")
      fake.own(address)
      const input = { config: config({ machineDetection: false }), address }
      const set = yield* inbound.configure({ ...input, webhookUrl: host.inboundUrl })
      if (carrier.inboundByApi === false) {
        // A warning that names the exact URL to set by hand.
        expect(set.ok).toBe(false)
        expect(set.message).toContain(host.inboundUrl)
        expect((yield* inbound.configure({ ...input, webhookUrl: null })).ok).toBe(false)
        return
      }
      const byDialplan = carrier.numbersRoutedByDialplan === true
      expect(set).toMatchObject({ ok: true })
      if (!byDialplan) expect(fake.voiceUrl(address)).toBe(host.inboundUrl)
      // Setting what is set already succeeds.
      expect((yield* inbound.configure({ ...input, webhookUrl: host.inboundUrl })).ok).toBe(true)
      expect((yield* inbound.configure({ ...input, webhookUrl: null })).ok).toBe(true)
      if (!byDialplan) expect(fake.voiceUrl(address)).toBe(null)
      if (carrier.transientFailures === false) return

      fake.failNext(500, 1)
      const failing = yield* inbound.configure({ ...input, webhookUrl: host.inboundUrl })
      expect(failing.ok).toBe(false)
      const secrets = adapter.fields.filter((f) => f.sensitive).map((f) => body({ machineDetection: false })[f.name])
      for (const secret of secrets) if (typeof secret === "string" && secret.length >= 6) expect(failing.message).not.toContain(secret)
    }))

  it.effect("an incoming call to a bound number is routed by account and number, verified, answered with a media stream, and ends when the caller hangs up", () =>
    Effect.gen(function*() {
      const { adapter, config, fake, host } = yield* Contract
      const address = yield* boundNumber
      const caller = freshNumber("+1415666")
      const incoming = yield* Effect.promise(() => fake.placeInbound({ to: address, from: caller }))
      expect(incoming).toMatchObject({ status: 200, answer: "stream" })
      const seen = host.inbound.find((i) => i.call?.providerCallId === incoming.providerCallId)!
      expect(seen.call!.accountId).toBe(adapter.accountId(config({ machineDetection: false })))
      expect(routingAddress(seen.call!.to)).toBe(address)
      expect(routingAddress(seen.call!.from)).toBe(caller)
      const leg = yield* Effect.promise(() => fake.media(incoming.providerCallId))
      const media = yield* started(() => seen.attempt?.media[0])
      expect(media.start()!.format).toEqual(leg.format)
      yield* roundTrip(leg, media)
      leg.press("7")
      yield* eventually(() => media.events.some((e) => e._tag === "Dtmf" && e.digit === "7"), "the digit")
      incoming.hangUp()
      yield* eventually(() => !leg.isOpen(), "the stream to close")
    }))

  it.effect("a number not bound here is refused politely; a forged webhook is 401; a busy line gets the busy signal", () =>
    Effect.gen(function*() {
      const { carrier, fake, host } = yield* Contract
      const caller = freshNumber("+1415666")
      const unknown = freshNumber("+1415999")
      fake.own(unknown)
      fake.route(unknown, host.inboundUrl)
      expect(yield* Effect.promise(() => fake.placeInbound({ to: unknown, from: caller }))).toMatchObject({
        status: 200,
        answer: "refused"
      })

      const address = yield* boundNumber
      expect(yield* Effect.promise(() => fake.placeInbound({ to: address, from: caller, signature: "wrong" }))).toMatchObject({
        status: 401
      })

      host.inboundAnswer = "busy"
      const busy = yield* Effect.promise(() => fake.placeInbound({ to: address, from: caller })).pipe(
        Effect.ensuring(Effect.sync(() => (host.inboundAnswer = "stream")))
      )
      expect(busy).toMatchObject({ status: 200, answer: carrier.busySignal === false ? "refused" : "busy" })
      busy.hangUp()
    }))
}
