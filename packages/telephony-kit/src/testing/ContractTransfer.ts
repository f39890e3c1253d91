/**
 * The contract's transfers (run when the carrier says the adapter transfers, `CarrierUnderTest.transfers`): an answered call handed to a
 * target that answers, is busy, does not answer or fails — the carrier dials the target it was given
 * and reports the result once, through the transfer's result URL (verified) or in-process; a transfer
 * nobody takes still ends the call as reached; a call that is over cannot be transferred. Where the
 * adapter declares warm transfers, the target hears the briefing before it joins (`CarrierFake.warmTransfer`).
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import type { TelephonyError } from "../TelephonyProvider.js"
import type { TransferOutcome } from "../Transfer.js"
import type { Scenario } from "./Carrier.js"
import { callAndWait, Contract, type ContractIt, endOf, eventually, eventuallyValue, freshNumber, placeTo } from "./ContractSetup.js"

/** How the target behaves, and the result the transfer must report. */
const cases: ReadonlyArray<readonly [Scenario, TransferOutcome]> = [
  ["completed", "answered"],
  ["busy", "busy"],
  ["no_answer", "no_answer"],
  ["failed", "failed"]
]

/** An answered call, its media stream connected, transferred to a target behaving as `scenario`. */
const transferTo = (scenario: Scenario, timeoutSeconds = 3, warm?: { readonly briefing: string }) =>
  Effect.gen(function*() {
    const { callerId, fake, host } = yield* Contract
    // The target's behaviour first: a carrier that decides calls by its configuration reads it when the call is placed.
    const target = freshNumber("+1415666")
    fake.behave(target, scenario)
    const { call } = yield* placeTo("talking")
    yield* eventually(() => call.events.some((e) => e.type === "answered"), "the call to be answered")
    yield* Effect.promise(() => fake.media(call.providerCallId!))
    const transfer = yield* host.transfer({
      config: call.config,
      providerCallId: call.providerCallId!,
      target,
      from: callerId,
      timeoutSeconds,
      ...(warm !== undefined ? { mode: "warm" as const, briefing: warm.briefing } : {})
    })
    const result = yield* eventuallyValue(Effect.sync(() => transfer.results[0]), `the result of the transfer to ${target}`, 20_000)
    return { call, target, transfer, result }
  })

export const transferTests = (it: ContractIt, transfers: boolean) => {
  it.effect(`transfers are ${transfers ? "declared and done" : "neither declared nor done"}, as the carrier says`, () =>
    Effect.gen(function*() {
      const { adapter } = yield* Contract
      expect(adapter.transfers !== undefined).toBe(transfers)
      expect(adapter.calls?.transfer !== undefined).toBe(transfers)
      if (adapter.transfers !== undefined) expect(adapter.transfers.cold).toBe(true)
    }))
  // The cases below need an adapter that transfers; the carrier says which (`CarrierUnderTest.transfers`).
  if (!transfers) return

  for (const [scenario, outcome] of cases) {
    it.effect(`a transfer to a target that is ${scenario === "completed" ? "answered" : scenario}: the carrier dials it and reports ${outcome} once`, () =>
      Effect.gen(function*() {
        const { fake } = yield* Contract
        const { call, result, target, transfer } = yield* transferTo(scenario)
        expect(result.outcome).toBe(outcome)
        expect(result.at).toBeGreaterThan(0)
        if (fake.transferredTo !== undefined) expect(fake.transferredTo(call.providerCallId!)).toBe(target)
        // Every result request verified; a second report, if any, says the same.
        expect(transfer.requests.every((status) => status === 200)).toBe(true)
        for (const later of transfer.results) expect(later.outcome).toBe(outcome)
        if (outcome !== "answered") {
          // Nobody took the caller: the call ends, and it was answered (the caller was reached).
          const ended = yield* endOf(call, 20_000)
          expect(ended.outcome).toBe("completed")
        }
      }))
  }

  it.effect("warm transfers, where declared: the person answering hears the briefing before joining the caller; nobody answering is reported", () =>
    Effect.gen(function*() {
      const { adapter, fake } = yield* Contract
      if (adapter.transfers?.warm !== true) return
      const briefing = "A caller for the billing desk."
      const answered = yield* transferTo("completed", 3, { briefing })
      expect(answered.result.outcome).toBe("answered")
      if (fake.transferredTo !== undefined) expect(fake.transferredTo(answered.call.providerCallId!)).toBe(answered.target)
      const seen = fake.warmTransfer?.(answered.call.providerCallId!)
      expect(seen?.briefed.join(" ")).toContain(briefing)
      expect(seen?.callerHeard.join(" ")).not.toContain(briefing)
      const nobody = yield* transferTo("no_answer", 3, { briefing })
      expect(nobody.result.outcome).toBe("no_answer")
      expect(fake.warmTransfer?.(nobody.call.providerCallId!)?.briefed ?? []).toEqual([])
      // The caller is not left waiting: the call ends, reached.
      expect((yield* endOf(nobody.call, 20_000)).outcome).toBe("completed")
    }))

  it.effect("a call that is over cannot be transferred: the request fails, not retryable", () =>
    Effect.gen(function*() {
      const { adapter, callerId, host } = yield* Contract
      const { call } = yield* callAndWait("completed")
      const error: TelephonyError = yield* Effect.flip(
        host.transfer({ config: call.config, providerCallId: call.providerCallId!, target: freshNumber("+1415666"), from: callerId })
      )
      expect(error.retryable).toBe(false)
      expect(error.provider).toBe(adapter.name)
    }))
}
