/**
 * The transfer part of the server's contract: a call's runtime asks for a transfer (`CallAudio.transfer`,
 * as the voice runtime does at a transfer node: the loopback's digit `7`), through the server's
 * `Transfers`, the adapter and the fake; the run's `logs.transfer` records what was done and the result
 * the carrier reported (through the verified result route, or in-process), once. Cold on every adapter
 * that declares transfers (a target that answers, one that does not: the caller's call still ends
 * reached); warm where the adapter declares it (the target is briefed before it joins, and nobody
 * answering leaves the caller on nothing silent); warm asked of an adapter without it is done cold and
 * says so; an adapter without transfers records the transfer failed with its reason.
 */
import type { TransferMode } from "@agentline/telephony-kit/Transfer"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { pcmLeg } from "./Carrier.js"
import { attemptOf, completedRun, type Fake, freshNumber, placeCall, runOf, setupCarrier } from "./Contract.js"
import { type ContractIt, eventually } from "./ContractMedia.js"
import { recordings, transferRequests, transfersStarted } from "./Loopback.js"

const BRIEFING = "A caller wants the billing desk."

export const transferTests = (it: ContractIt, fakeTag: typeof Fake) => {
  /** A talking call transferred by its runtime to a target behaving as `scenario`: the run once the result is in. */
  const transferred = (scenario: "completed" | "no_answer", mode: TransferMode) =>
    Effect.gen(function*() {
      const { fake } = yield* fakeTag
      const setup = yield* setupCarrier()
      const target = freshNumber("+1415333")
      fake.behave(target, scenario)
      const to = freshNumber()
      fake.behave(to, "talking")
      const placed = yield* placeCall(setup, to)
      expect(placed.status).toBe(200)
      const runId = placed.body.workflow_run_id as number
      const attempt = yield* attemptOf(runId)
      const leg = pcmLeg(yield* Effect.promise(() => fake.media(attempt.providerCallId)))
      yield* eventually(() => recordings.has(attempt.providerCallId), "the runtime to get the call")
      transferRequests.set(attempt.providerCallId, { target, mode, timeoutSeconds: 5, ...(mode === "warm" ? { briefing: BRIEFING } : {}) })
      leg.press("7")
      yield* eventually(() => transfersStarted.has(attempt.providerCallId), "the transfer to be asked")
      // The runtime left the stream; the call goes on at the carrier until the transfer is over.
      yield* eventually(() => !leg.isOpen(), "the agent's stream to close", 20_000)
      // The caller's call ends when the transfer is over (the person hung up, or nobody answered).
      yield* Effect.promise(() => fake.ended(attempt.providerCallId))
      let run = yield* runOf(setup, runId)
      const deadline = Date.now() + 30_000
      while ((run.logs?.transfer?.status ?? "dialing") === "dialing" && Date.now() < deadline) {
        yield* Effect.sleep("50 millis")
        run = yield* runOf(setup, runId)
      }
      return { run, runId, setup, target, providerCallId: attempt.providerCallId, started: transfersStarted.get(attempt.providerCallId)! }
    })

  it.effect("transfers: cold where declared (a target that answers, one that does not), warm as declared, refused with the adapter's reason otherwise", () =>
    Effect.gen(function*() {
      const { adapter, fake } = yield* fakeTag
      if (adapter.transfers === undefined) {
        const { run, target } = yield* transferred("completed", "cold")
        expect(run.logs.transfer).toMatchObject({ provider: adapter.name, target, mode: "cold", status: "failed", ended_at: expect.any(String) })
        expect(run.logs.transfer.cause).toBe(adapter.noTransfers ?? `${adapter.displayName} calls cannot be transferred by this adapter`)
        return
      }
      expect(adapter.transfers.cold).toBe(true)

      const answered = yield* transferred("completed", "cold")
      expect(answered.started).toMatchObject({ mode: "cold", status: "dialing" })
      expect(answered.run.logs.transfer).toMatchObject({
        transfer_id: answered.started.transferId,
        provider: adapter.name,
        target: answered.target,
        mode: "cold",
        requested_mode: "cold",
        status: "answered",
        ended_at: expect.any(String)
      })
      if (fake.transferredTo !== undefined) expect(fake.transferredTo(answered.providerCallId)).toBe(answered.target)

      const unanswered = yield* transferred("no_answer", "cold")
      expect(unanswered.run.logs.transfer).toMatchObject({ mode: "cold", status: "no_answer" })
      // Nobody took the caller: the call ends, and it was answered (the caller was reached).
      expect((yield* completedRun(unanswered.setup, unanswered.runId, 30_000)).gathered_context.outcome).toBe("completed")

      const warm = yield* transferred("completed", "warm")
      if (!adapter.transfers.warm) {
        // Asked warm of an adapter without it: done cold, and the run says so.
        expect(warm.run.logs.transfer).toMatchObject({ mode: "cold", requested_mode: "warm", status: "answered" })
        return
      }
      expect(warm.run.logs.transfer).toMatchObject({ mode: "warm", requested_mode: "warm", status: "answered" })
      if (fake.transferredTo !== undefined) expect(fake.transferredTo(warm.providerCallId)).toBe(warm.target)
      // The person heard the briefing before joining; the caller waited (hold music or ringing), and was not briefed.
      const seen = fake.warmTransfer?.(warm.providerCallId)
      expect(seen?.target).toBe(warm.target)
      expect(seen?.briefed.join(" ")).toContain(BRIEFING)
      expect(seen?.callerHeard[0]).toBe("hold")
      expect(seen?.callerHeard.join(" ")).not.toContain(BRIEFING)

      const warmUnanswered = yield* transferred("no_answer", "warm")
      expect(warmUnanswered.run.logs.transfer).toMatchObject({ mode: "warm", status: "no_answer" })
      expect((yield* completedRun(warmUnanswered.setup, warmUnanswered.runId, 30_000)).gathered_context.outcome).toBe("completed")
      // Nobody was briefed; the caller was not left on hold: told something, or the call simply ended.
      const nobody = fake.warmTransfer?.(warmUnanswered.providerCallId)
      expect(nobody?.briefed ?? []).toEqual([])
    }))
}
