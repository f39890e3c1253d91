/**
 * Transfer to a person through the whole server on the other providers this file covers, on SQLite and
 * PostgreSQL: a call placed on the provider's fake, the caller asks for a person, the agent says the
 * transfer node's message and asks the provider to transfer —
 *
 * - Asterisk ARI: the target originated into the application and bridged with the caller; the result
 *   reported in-process from the target's channel events;
 * - Cloudonix: the session handed a `<Dial>`; the result posted by Cloudonix to the transfer's result
 *   route (its `action`), verified with the domain's API key;
 * - Exotel: its API cannot transfer a live call; the adapter says so, the run records the transfer
 *   `failed` with that cause, and the call is hung up after the message (docs/transfer.md).
 */
import { carrier as ari } from "@agentline/telephony-ari/testing/Carrier"
import { carrier as cloudonix } from "@agentline/telephony-cloudonix/testing/Carrier"
import { NO_TRANSFERS } from "@agentline/telephony-exotel/Exotel"
import { carrier as exotel } from "@agentline/telephony-exotel/testing/Carrier"
import { defaultPrices } from "@agentline/voice/session/Costs"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { CarrierUnderTest } from "../contract/Carrier.js"
import { freshNumber } from "../contract/Contract.js"
import { call, dialects, seedOrganization } from "../Harness.js"
import { transferDefinition } from "./ConversationScript.js"
import { agentFinishedSpeaking, Fakes, placeTalkingCall, say, voiceLayer } from "./PhoneCallHarness.js"

let callerLines: ReadonlyArray<string> = []

interface RunReply {
  readonly is_completed: boolean
  readonly gathered_context: Record<string, unknown> | null
  readonly logs: {
    readonly transfer?: Record<string, unknown> & { readonly status: string }
    readonly realtime_feedback_events: ReadonlyArray<{ readonly type: string; readonly payload: Record<string, unknown> }>
    readonly transcript?: ReadonlyArray<{ readonly role: string; readonly text: string }>
  }
}

/** A call of an agent whose transfer node sends the caller to `target` (behaving as `completed`), asked for a person. */
const transferredCall = Effect.gen(function*() {
  const { carrier } = yield* Fakes
  const target = freshNumber("+1415999")
  carrier.fake.behave(target, "completed")
  const org = yield* seedOrganization()
  const callerId = freshNumber("+1415666")
  carrier.fake.own(callerId)
  const config = yield* call("POST", "/api/v1/organizations/telephony-configs", {
    apiKey: org.apiKey,
    body: { name: carrier.provider, config: { provider: carrier.provider, ...carrier.config({ machineDetection: false }) }, is_default_outbound: true }
  })
  expect(config.status).toBe(200)
  expect((yield* call("POST", `/api/v1/organizations/telephony-configs/${config.body.id}/phone-numbers`, {
    apiKey: org.apiKey,
    body: { address: callerId, is_default_caller_id: true }
  })).status).toBe(200)
  const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
    apiKey: org.apiKey,
    body: { name: "Transfer agent", workflow_definition: transferDefinition(target), workflow_configurations: { smart_turn_stop_secs: 0.5 } }
  })
  expect(agent.status).toBe(200)
  callerLines = ["Can I talk to a person?"]
  const { leg, providerCallId, runId } = yield* placeTalkingCall(org.apiKey, agent.body.workflow_uuid)
  const greeted = yield* agentFinishedSpeaking(leg, 0, "the greeting")
  yield* say(leg, "Can I talk to a person?")
  yield* agentFinishedSpeaking(leg, greeted, "the transfer message")
  // The caller's call ends answered, whatever became of the transfer.
  expect(yield* Effect.promise(() => carrier.fake.ended(providerCallId))).toBe("completed")
  let run: RunReply
  const deadline = Date.now() + 30_000
  do {
    run = (yield* call("GET", `/api/v1/workflow/${agent.body.id}/runs/${runId}`, { apiKey: org.apiKey })).body
    if (run.is_completed && run.logs?.transfer !== undefined && run.logs.transfer.status !== "dialing" && run.logs?.transcript !== undefined) break
    yield* Effect.sleep("100 millis")
  } while (Date.now() < deadline)
  expect(run.logs.transcript?.map((t) => [t.role, t.text])).toEqual([
    ["assistant", "Hello, how can I help?"],
    ["user", "Can I talk to a person?"],
    ["assistant", "Let me put you through to sales."]
  ])
  return { run, target, providerCallId }
})

/** The providers that transfer, and the cause their result gives (ARI's target may hang up before the bridge is made). */
const transferring: ReadonlyArray<readonly [CarrierUnderTest, RegExp]> = [
  [ari, /^StasisStart \(channel Up\)/],
  [cloudonix, /^CallStatus=completed$/]
]

for (const dialect of dialects) {
  for (const [carrier, cause] of transferring) {
    layer(voiceLayer(dialect, () => callerLines, defaultPrices, {}, carrier), { timeout: "120 seconds", excludeTestServices: true })(
      `transfer to a person on ${carrier.provider} [${dialect}]`,
      (it) => {
        it.effect(`the agent says the message, ${carrier.provider} dials the target and bridges the caller; the run records it answered`, () =>
          Effect.gen(function*() {
            const { carrier: fake } = yield* Fakes
            const { providerCallId, run, target } = yield* transferredCall
            expect(fake.fake.transferredTo?.(providerCallId)).toBe(target)
            expect(run.logs.transfer).toMatchObject({ provider: carrier.provider, target, requested_mode: "warm", mode: "cold", status: "answered", cause: expect.stringMatching(cause) })
            expect(run.gathered_context).toMatchObject({ end_reason: "transfer_call", call_disposition: "transferred", transfer_status: "dialing", transfer_target: target, outcome: "completed" })
            expect(run.logs.realtime_feedback_events.find((e) => e.type === "rtf-transfer")?.payload).toMatchObject({ target, mode: "cold", status: "dialing" })
          }), 120_000)
      }
    )
  }

  layer(voiceLayer(dialect, () => callerLines, defaultPrices, {}, exotel), { timeout: "120 seconds", excludeTestServices: true })(
    `transfer to a person on exotel, which cannot transfer [${dialect}]`,
    (it) => {
      it.effect("the agent says the message; the run records the transfer failed, saying Exotel cannot transfer; the call is hung up", () =>
        Effect.gen(function*() {
          const { providerCallId, run, target } = yield* transferredCall
          const { carrier } = yield* Fakes
          expect(carrier.adapter.transfers).toBeUndefined()
          expect(carrier.fake.transferredTo?.(providerCallId)).toBeUndefined()
          expect(run.logs.transfer).toMatchObject({ provider: "exotel", target, mode: "cold", status: "failed", cause: NO_TRANSFERS, ended_at: expect.any(String) })
          expect(run.gathered_context).toMatchObject({ end_reason: "transfer_call", transfer_status: "failed", transfer_target: target, outcome: "completed" })
          const events = run.logs.realtime_feedback_events
          expect(events.find((e) => e.type === "rtf-transfer")?.payload).toMatchObject({ target, status: "failed" })
          expect(events.find((e) => e.type === "rtf-pipeline-error")?.payload).toEqual({ error: `the transfer failed: ${NO_TRANSFERS}; the call is ended`, fatal: false })
        }), 120_000)
    }
  )
}
