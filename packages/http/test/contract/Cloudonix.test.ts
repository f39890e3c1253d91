/** The contract suite for Cloudonix, against the fake Cloudonix of `@agentline/telephony-cloudonix/testing`. */
import { CloudonixCallbacks } from "@agentline/telephony-cloudonix"
import type * as FakeCloudonix from "@agentline/telephony-cloudonix/testing/FakeCloudonix"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { CarrierUnderTest } from "./Carrier.js"
import { cloudonix, startCloudonix } from "./CloudonixCarrier.js"
import { attemptOf, completedRun, contractLayer, freshNumber, placeCall, runOf, runContract, setupCarrier, statuses } from "./Contract.js"

runContract(cloudonix)

// Cloudonix's own: its session notifications through the server's callback route. The route does not
// depend on the database, so one dialect is enough.
let running: FakeCloudonix.FakeCloudonix | undefined
const observed: CarrierUnderTest = {
  ...cloudonix,
  start: async () => {
    const { fake, started } = await startCloudonix()
    running = fake
    return started
  }
}

layer(contractLayer(observed, "sqlite"), { timeout: "60 seconds", excludeTestServices: true })("cloudonix session states [sqlite]", (it) => {
  it.scoped("every session state Cloudonix documents is answered 200; those that say nothing of the call change nothing; an ending ends it", () =>
    Effect.gen(function*() {
      const setup = yield* setupCarrier()
      const to = freshNumber()
      // A callee that lets it ring for a long while: the notifications below arrive during the ringing.
      running!.behave(to, { answer: "human", ringSeconds: 3000 })
      const placed = yield* placeCall(setup, to)
      expect(placed.status).toBe(200)
      const runId = placed.body.workflow_run_id as number
      const attempt = yield* attemptOf(runId)
      const call = running!.call(attempt.providerCallId)!
      yield* Effect.addFinalizer(() => Effect.sync(() => call.end("canceled")))
      // Cloudonix's own notifications so far (new, ringing) are in.
      const deadline = Date.now() + 10_000
      while (call.callbacks.length < 2) {
        if (Date.now() > deadline) return yield* Effect.dieMessage("the call did not ring")
        yield* Effect.sleep("20 millis")
      }
      const ringing = yield* runOf(setup, runId)
      expect(statuses(ringing)).toEqual(["initiated", "ringing"])
      const meanings = Object.entries(CloudonixCallbacks.SESSION_STATES)
      // States that tell nothing of the call (and one Cloudonix may add): acknowledged, nothing on the run.
      for (const [state] of meanings.filter(([, m]) => m._tag === "Nothing")) expect(yield* Effect.promise(() => call.report(state))).toBe(200)
      expect(yield* Effect.promise(() => call.report("transferring"))).toBe(200)
      expect(yield* runOf(setup, runId)).toEqual(ringing)
      // Progress: acknowledged and logged, the call goes on.
      for (const [state] of meanings.filter(([, m]) => m._tag === "Progress")) expect(yield* Effect.promise(() => call.report(state))).toBe(200)
      const progressed = yield* runOf(setup, runId)
      expect(progressed.is_completed).toBe(false)
      expect(statuses(progressed)).toEqual(["initiated", "ringing", "initiated", "ringing", "answered", "answered"])
      // An ending ends the run; the endings after it are acknowledged and change nothing.
      expect(yield* Effect.promise(() => call.report("nocredit"))).toBe(200)
      const ended = yield* completedRun(setup, runId)
      expect(ended.gathered_context.outcome).toBe("failed")
      for (const [state] of meanings.filter(([, m]) => m._tag === "Ends")) expect(yield* Effect.promise(() => call.report(state))).toBe(200)
      expect((yield* runOf(setup, runId)).gathered_context).toEqual(ended.gathered_context)
    }))
})
