/**
 * Transfer to a person end to end, on SQLite and PostgreSQL: a call placed through the whole server and
 * the fake Twilio; the caller asks for a person, the model takes the edge into a transfer node, the
 * agent says the node's message and the live call is updated with a `<Dial>` of the target; the fake
 * dials it (it answers, or does not) and posts the result to `/telephony/transfer-result/{id}`, signed;
 * the run shows the transfer (`logs.transfer`, `rtf-transfer`), the agent's part ends without a hang-up
 * of its own, and the call ends answered (the caller was reached).
 */
import { defaultPrices } from "@agentline/voice/session/Costs"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { transferDefinition } from "./ConversationScript.js"
import { agentFinishedSpeaking, Fakes, placeTalkingCall, say, voiceLayer } from "./PhoneCallHarness.js"
import { call, dialects, seedOrganization } from "../Harness.js"
import { freshNumber } from "../contract/Contract.js"

let callerLines: ReadonlyArray<string> = []

/** The parts of a run reply these tests read. */
interface RunReply {
  readonly id: number
  readonly is_completed: boolean
  readonly gathered_context: Record<string, unknown> | null
  readonly logs: {
    readonly transfer?: { readonly transfer_id: string; readonly status: string; readonly cause?: string; readonly started_at: string; readonly ended_at: string | null }
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
      body: { name: "twilio", config: { provider: "twilio", ...carrier.config({ machineDetection: false }) }, is_default_outbound: true }
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
    const { leg, providerCallId, runId } = yield* placeTalkingCall(s.apiKey, s.agent.workflow_uuid)
    const greeted = yield* agentFinishedSpeaking(leg, 0, "the greeting")
    yield* say(leg, "Can I talk to a person?")
    yield* agentFinishedSpeaking(leg, greeted, "the transfer message")
    expect(yield* Effect.promise(() => carrier.fake.ended(providerCallId))).toBe("completed")
    expect(carrier.fake.transferredTo?.(providerCallId)).toBe(target)
    let run: RunReply
    const deadline = Date.now() + 30_000
    do {
      run = (yield* call("GET", `/api/v1/workflow/${s.agent.id}/runs/${runId}`, { apiKey: s.apiKey })).body
      if (run.is_completed && run.logs?.transfer?.status !== "dialing" && run.logs?.transcript !== undefined) break
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
    } while (Date.now() < deadline)
    return { run, target, s }
  })

for (const dialect of dialects) {
  layer(voiceLayer(dialect, () => callerLines, defaultPrices), { timeout: "120 seconds", excludeTestServices: true })(`transfer to a person [${dialect}]`, (it) => {
    it.effect("a target that answers: the agent says the message, Twilio dials the target, the run records it answered; the call was reached", () =>
      Effect.gen(function*() {
        const { run, target } = yield* transferred("completed")
        expect(run.logs.transfer).toMatchObject({
          provider: "twilio",
          target,
          // Warm was asked; Twilio's adapter transfers cold only, and the run says so.
          requested_mode: "warm",
          mode: "cold",
          status: "answered",
          cause: "CallStatus=in-progress",
          started_at: expect.any(String),
          ended_at: expect.any(String)
        })
        expect(Date.parse(run.logs.transfer?.ended_at ?? "")).toBeGreaterThanOrEqual(Date.parse(run.logs.transfer?.started_at ?? ""))
        expect(run.gathered_context).toMatchObject({ end_reason: "transfer_call", call_disposition: "transferred", transfer_status: "dialing", transfer_target: target, outcome: "completed" })
        const event = run.logs.realtime_feedback_events.find((e) => e.type === "rtf-transfer")
        expect(event?.payload).toMatchObject({ node_id: "sales", target, mode: "cold", status: "dialing", transfer_id: run.logs.transfer?.transfer_id })
        expect(run.logs.transcript?.map((t) => [t.role, t.text])).toEqual([
          ["assistant", "Hello, how can I help?"],
          ["user", "Can I talk to a person?"],
          ["assistant", "Let me put you through to sales."]
        ])
      }), 120_000)

    it.effect("a target that does not answer: the run records no_answer; the caller's call ends, reached", () =>
      Effect.gen(function*() {
        const { run, target } = yield* transferred("no_answer")
        // Twilio reports the outcome twice (the `<Dial action>` and the dialed leg's status callback) and
        // either may arrive first; the first one decides, and both say no-answer.
        expect(run.logs.transfer).toMatchObject({ target, status: "no_answer" })
        expect(run.logs.transfer?.cause).toMatch(/^(DialCallStatus=no-answer|CallStatus=no-answer, SIP 487)$/)
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
