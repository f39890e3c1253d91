/**
 * Transfer to a person end to end, on SQLite and PostgreSQL: a call placed through the whole server and
 * the fake Twilio; the caller asks for a person, the model takes the edge into a (warm) transfer node,
 * the agent says the node's message and the live call is moved into a conference on hold music; the fake
 * calls the target with the briefing, which then joins the caller (or does not answer: the caller is
 * told so) and posts the result to `/telephony/transfer-result/{id}`, signed; the run shows the transfer
 * (`logs.transfer`, `rtf-transfer`), the agent's part ends without a hang-up of its own, and the call
 * ends answered (the caller was reached). The same, a target that answers and
 * one that does not, through the fakes of the other providers that transfer (Telnyx, Plivo, Vobiz,
 * Vonage), each reporting in its own way; a target that answers on Asterisk ARI and Cloudonix; and
 * Exotel, which cannot transfer.
 */
import { defaultPrices } from "@agentline/voice/session/Costs"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { transferDefinition } from "./ConversationScript.js"
import { agentFinishedSpeaking, Fakes, placeTalkingCall, say, voiceLayer } from "./PhoneCallHarness.js"
import { call, dialects, seedOrganization } from "../Harness.js"
import { freshNumber } from "../contract/Contract.js"
import type { CarrierUnderTest } from "@agentline/telephony-kit/testing/Carrier"
import { carrier as plivo } from "@agentline/telephony-plivo/testing/Carrier"
import { carrier as telnyx } from "@agentline/telephony-telnyx/testing/Carrier"
import { carrier as vobiz } from "@agentline/telephony-vobiz/testing/Carrier"
import { carrier as vonage } from "@agentline/telephony-vonage/testing/Carrier"
import { carrier as ari } from "@agentline/telephony-ari/testing/Carrier"
import { carrier as cloudonix } from "@agentline/telephony-cloudonix/testing/Carrier"
import { NO_TRANSFERS } from "@agentline/telephony-exotel/Exotel"
import { Transfer as TwilioTransfer } from "@agentline/telephony-twilio/Twilio"
import { carrier as exotel } from "@agentline/telephony-exotel/testing/Carrier"

let callerLines: ReadonlyArray<string> = []

/** The parts of a run reply these tests read. */
interface RunReply {
  readonly id: number
  readonly is_completed: boolean
  readonly gathered_context: Record<string, unknown> | null
  readonly logs: {
    readonly transfer?: {
      readonly transfer_id: string
      readonly status: string
      readonly cause?: string | null
      readonly started_at: string
      readonly ended_at: string | null
    }
    readonly realtime_feedback_events: ReadonlyArray<{ readonly type: string; readonly payload: Record<string, unknown> }>
    readonly transcript?: ReadonlyArray<{ readonly role: string; readonly text: string }>
  }
}

const setup = (target: string) =>
  Effect.gen(function*() {
    const { carrier } = yield* Fakes
    const org = yield* seedOrganization()
    const callerId = freshNumber("+1415666")
    carrier.fake.own(callerId)
    const config = yield* call("POST", "/api/v1/organizations/telephony-configs", {
      apiKey: org.apiKey,
      body: { name: carrier.adapter.name, config: { provider: carrier.adapter.name, ...carrier.config({ machineDetection: false }) }, is_default_outbound: true }
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
    return { apiKey: org.apiKey, agent: agent.body as { id: number; workflow_uuid: string } }
  })

const transferred = (scenario: "completed" | "no_answer") =>
  Effect.gen(function*() {
    const { carrier } = yield* Fakes
    const target = freshNumber("+1415999")
    carrier.fake.behave(target, scenario)
    const s = yield* setup(target)
    callerLines = ["Can I talk to a person?"]
    const { leg, providerCallId, runId } = yield* placeTalkingCall(s.apiKey, s.agent.workflow_uuid, { customer: "Ann Lee" })
    const greeted = yield* agentFinishedSpeaking(leg, 0, "the greeting")
    yield* say(leg, "Can I talk to a person?")
    yield* agentFinishedSpeaking(leg, greeted, "the transfer message")
    // The caller's call ends answered, whatever became of the transfer.
    expect(yield* Effect.promise(() => carrier.fake.ended(providerCallId))).toBe("completed")
    let run: RunReply
    const deadline = Date.now() + 30_000
    do {
      run = (yield* call("GET", `/api/v1/workflow/${s.agent.id}/runs/${runId}`, { apiKey: s.apiKey })).body
      if (run.is_completed && run.logs?.transfer !== undefined && run.logs.transfer.status !== "dialing" && run.logs?.transcript !== undefined) break
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
    } while (Date.now() < deadline)
    return { run, target, s, providerCallId, transferredTo: carrier.fake.transferredTo?.(providerCallId), warm: carrier.fake.warmTransfer?.(providerCallId) }
  })

for (const dialect of dialects) {
  layer(voiceLayer(dialect, () => callerLines, defaultPrices), { timeout: "120 seconds", excludeTestServices: true })(`transfer to a person [${dialect}]`, (it) => {
    it.effect("a warm transfer answered: the caller waits on hold music, the target hears the briefing and joins; the run records it answered", () =>
      Effect.gen(function*() {
        const { run, target, transferredTo, warm } = yield* transferred("completed")
        expect(transferredTo).toBe(target)
        // The briefing rendered with the call's variables was said to the person, never to the caller.
        expect(warm).toEqual({ target, briefed: ["A caller for sales: Ann Lee."], callerHeard: ["hold"] })
        expect(run.logs.transfer).toMatchObject({
          provider: "twilio",
          target,
          requested_mode: "warm",
          mode: "warm",
          status: "answered",
          cause: "CallStatus=in-progress",
          started_at: expect.any(String),
          ended_at: expect.any(String)
        })
        expect(Date.parse(run.logs.transfer?.ended_at ?? "")).toBeGreaterThanOrEqual(Date.parse(run.logs.transfer?.started_at ?? ""))
        expect(run.gathered_context).toMatchObject({ end_reason: "transfer_call", call_disposition: "transferred", transfer_status: "dialing", transfer_target: target, outcome: "completed" })
        const event = run.logs.realtime_feedback_events.find((e) => e.type === "rtf-transfer")
        expect(event?.payload).toMatchObject({
          node_id: "sales",
          target,
          mode: "warm",
          status: "dialing",
          transfer_id: run.logs.transfer?.transfer_id,
          briefing: "A caller for sales: Ann Lee."
        })
        expect(run.logs.transcript?.map((t) => [t.role, t.text])).toEqual([
          ["assistant", "Hello, how can I help?"],
          ["user", "Can I talk to a person?"],
          ["assistant", "Let me put you through to sales."]
        ])
      }), 120_000)

    it.effect("a warm transfer nobody answers: the run records no_answer; the caller, on hold, is told so and the call ends, reached", () =>
      Effect.gen(function*() {
        const { run, target, transferredTo, warm } = yield* transferred("no_answer")
        expect(transferredTo).toBe(target)
        expect(run.logs.transfer).toMatchObject({ target, mode: "warm", status: "no_answer", cause: "CallStatus=no-answer" })
        // Not left with hold music: the caller hears what happened, then the call ends.
        expect(warm).toEqual({ target, briefed: [], callerHeard: ["hold", TwilioTransfer.UNANSWERED_SENTENCE] })
        expect(run.gathered_context).toMatchObject({ end_reason: "transfer_call", outcome: "completed" })
      }), 120_000)

    it.effect("a result for an unknown transfer is 404; a forged one is 401 and changes nothing", () =>
      Effect.gen(function*() {
        const unknown = yield* call("POST", "/api/v1/telephony/transfer-result/no-such-transfer", { body: {} })
        expect(unknown.status).toBe(404)
        const { run, s } = yield* transferred("completed")
        const forged = yield* call("POST", `/api/v1/telephony/transfer-result/${run.logs.transfer?.transfer_id}`, {
          raw: new URLSearchParams({ CallSid: "CAforged", DialCallStatus: "busy" }).toString(),
          headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": "bm90LWEtc2lnbmF0dXJl" }
        })
        expect(forged.status).toBe(401)
        const after: RunReply = (yield* call("GET", `/api/v1/workflow/${s.agent.id}/runs/${run.id}`, { apiKey: s.apiKey })).body
        expect(after.logs.transfer?.status).toBe("answered")
      }), 120_000)
  })
}

/**
 * The other providers run on the first database only: what a transfer stores is the same whatever the
 * provider, and runs on both databases above (Twilio's warm transfers) and in every adapter's server
 * contract (`contract/ContractTransfer.ts`: cold answered and unanswered, warm where declared). What is
 * checked here per provider is the voice runtime's transfer node through each fake, and each carrier's
 * own report of the result.
 */
const providerDialects = dialects.slice(0, 1)

/** The other providers that transfer, each through its fake: the result as each reports it. */
const others: ReadonlyArray<readonly [CarrierUnderTest, { readonly answered: RegExp; readonly noAnswer: RegExp }]> = [
  [telnyx, { answered: /^call\.answered$/, noAnswer: /^call\.hangup: timeout/ }],
  [plivo, { answered: /^DialAction=answer$/, noAnswer: /^DialStatus=no-answer/ }],
  [vobiz, { answered: /^DialAction=answer$/, noAnswer: /^DialStatus=no-answer/ }],
  [vonage, { answered: /^status=answered$/, noAnswer: /^status=timeout$/ }]
]

for (const [carrier, causes] of others) {
  for (const dialect of providerDialects) {
    layer(voiceLayer(dialect, () => callerLines, defaultPrices, {}, carrier), { timeout: "120 seconds", excludeTestServices: true })(
      `transfer to a person on ${carrier.provider} [${dialect}]`,
      (it) => {
        it.effect(`a target that answers: ${carrier.provider} dials it, the run records it answered; the call was reached`, () =>
          Effect.gen(function*() {
            const { run, target, transferredTo } = yield* transferred("completed")
            expect(transferredTo).toBe(target)
            expect(run.logs.transfer).toMatchObject({ provider: carrier.provider, target, requested_mode: "warm", mode: "cold", status: "answered" })
            expect(run.logs.transfer?.cause).toMatch(causes.answered)
            expect(run.gathered_context).toMatchObject({ end_reason: "transfer_call", call_disposition: "transferred", transfer_target: target, outcome: "completed" })
          }), 120_000)

        it.effect(`a target that does not answer: the run records no_answer; the caller's call ends, reached`, () =>
          Effect.gen(function*() {
            const { run, target, transferredTo } = yield* transferred("no_answer")
            expect(transferredTo).toBe(target)
            expect(run.logs.transfer).toMatchObject({ provider: carrier.provider, target, status: "no_answer" })
            expect(run.logs.transfer?.cause).toMatch(causes.noAnswer)
            expect(run.gathered_context).toMatchObject({ end_reason: "transfer_call", outcome: "completed" })
          }), 120_000)
      }
    )
  }
}

/**
 * Asterisk ARI (the target originated into the application and bridged with the caller; the result
 * in-process from the target channel's events) and Cloudonix (the session handed a `<Dial>`; the result
 * posted to the transfer's result route): a target that answers. ARI's target may hang up before the
 * bridge is made, hence its cause's prefix only.
 */
const answeredOnly: ReadonlyArray<readonly [CarrierUnderTest, RegExp]> = [
  [ari, /^StasisStart \(channel Up\)/],
  [cloudonix, /^CallStatus=completed$/]
]

const conversation = [
  ["assistant", "Hello, how can I help?"],
  ["user", "Can I talk to a person?"],
  ["assistant", "Let me put you through to sales."]
]

for (const dialect of providerDialects) {
  for (const [carrier, cause] of answeredOnly) {
    layer(voiceLayer(dialect, () => callerLines, defaultPrices, {}, carrier), { timeout: "120 seconds", excludeTestServices: true })(
      `transfer to a person on ${carrier.provider} [${dialect}]`,
      (it) => {
        it.effect(`the agent says the message, ${carrier.provider} dials the target and bridges the caller; the run records it answered`, () =>
          Effect.gen(function*() {
            const { run, target, transferredTo } = yield* transferred("completed")
            expect(transferredTo).toBe(target)
            expect(run.logs.transfer).toMatchObject({ provider: carrier.provider, target, requested_mode: "warm", mode: "cold", status: "answered" })
            expect(run.logs.transfer?.cause).toMatch(cause)
            expect(run.gathered_context).toMatchObject({ end_reason: "transfer_call", call_disposition: "transferred", transfer_status: "dialing", transfer_target: target, outcome: "completed" })
            expect(run.logs.realtime_feedback_events.find((e) => e.type === "rtf-transfer")?.payload).toMatchObject({ target, mode: "cold", status: "dialing" })
            expect(run.logs.transcript?.map((t) => [t.role, t.text])).toEqual(conversation)
          }), 120_000)
      }
    )
  }

  // Exotel's API cannot transfer a live call: the adapter says so, the run records the transfer failed with
  // that cause, and the call is hung up after the message (docs/transfer.md).
  layer(voiceLayer(dialect, () => callerLines, defaultPrices, {}, exotel), { timeout: "120 seconds", excludeTestServices: true })(
    `transfer to a person on exotel, which cannot transfer [${dialect}]`,
    (it) => {
      it.effect("the agent says the message; the run records the transfer failed, saying Exotel cannot transfer; the call is hung up", () =>
        Effect.gen(function*() {
          const { run, target, transferredTo } = yield* transferred("completed")
          const { carrier } = yield* Fakes
          expect(carrier.adapter.transfers).toBeUndefined()
          expect(transferredTo).toBeUndefined()
          expect(run.logs.transfer).toMatchObject({ provider: "exotel", target, mode: "cold", status: "failed", cause: NO_TRANSFERS, ended_at: expect.any(String) })
          expect(run.gathered_context).toMatchObject({ end_reason: "transfer_call", transfer_status: "failed", transfer_target: target, outcome: "completed" })
          const events = run.logs.realtime_feedback_events
          expect(events.find((e) => e.type === "rtf-transfer")?.payload).toMatchObject({ target, status: "failed" })
          expect(events.find((e) => e.type === "rtf-pipeline-error")?.payload).toEqual({ error: `the transfer failed: ${NO_TRANSFERS}; the call is ended`, fatal: false })
          expect(run.logs.transcript?.map((t) => [t.role, t.text])).toEqual(conversation)
        }), 120_000)
    }
  )
}
