/**
 * The voice runtime end to end, on SQLite and PostgreSQL: a call placed through the whole server and
 * the fake Twilio, answered by a person whose speech is synthesized (espeak-ng); the agent greets,
 * hears (the scripted recognizer fake), asks the fake OpenAI-compatible LLM at each node, speaks its
 * replies (espeak-ng), moves through the graph, extracts, ends the call; the run carries the results.
 */
import { bargeInDefinition, definition, toolNames } from "./ConversationScript.js"
import { defaultPrices, mergePrices } from "@agentline/voice/session/Costs"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { agentFinishedSpeaking, download, Fakes, placeTalkingCall, say, voiceLayer } from "./PhoneCallHarness.js"
import { eventually } from "../contract/ContractMedia.js"
import { call, dialects, seedOrganization } from "../Harness.js"
import { freshNumber } from "../contract/Contract.js"

/** What the caller of the next call says, in order (the scripted recognizer's lines). */
let callerLines: ReadonlyArray<string> = []

/** An organization on the fake Twilio with one agent of `workflowDefinition`. */
const setup = (workflowDefinition: unknown) =>
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
      body: { name: "Voice agent", workflow_definition: workflowDefinition, workflow_configurations: { smart_turn_stop_secs: 0.5 } }
    })
    expect(agent.status).toBe(200)
    return { apiKey: org.apiKey, agent: agent.body as { id: number; workflow_uuid: string } }
  })

const runOf = (s: { apiKey: string; agent: { id: number } }, runId: number) =>
  Effect.map(call("GET", `/api/v1/workflow/${s.agent.id}/runs/${runId}`, { apiKey: s.apiKey }), (r) => r.body)

/** Seconds of audio in a 16-bit mono WAV. */
const wavSeconds = (wav: Uint8Array) => {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength)
  return view.getUint32(40, true) / 2 / view.getUint32(24, true)
}

for (const dialect of dialects) {
  layer(voiceLayer(dialect, () => callerLines, mergePrices(defaultPrices, { llm: { "openai:fake-model": { input_per_million: 1, output_per_million: 2 } }, stt: {}, tts: {} })), { timeout: "120 seconds", excludeTestServices: true })(`voice runtime [${dialect}]`, (it) => {
    it.effect("a two-node agent greets, hears, transitions, extracts and ends the call; the run has transcript, recordings, usage and the transition", () =>
      Effect.gen(function*() {
        const { carrier, llmRequests } = yield* Fakes
        const s = yield* setup(definition)
        callerLines = ["Yes, I am interested.", "I live in Paris."]
        const before = llmRequests.length
        const { leg, providerCallId, runId } = yield* placeTalkingCall(s.apiKey, s.agent.workflow_uuid, { first_name: "Ada", product: "solar panels" })

        const greeted = yield* agentFinishedSpeaking(leg, 0, "the greeting")
        yield* say(leg, "Yes, I am interested.")
        yield* agentFinishedSpeaking(leg, greeted, "the question at the second node")
        yield* say(leg, "I live in Paris.")
        yield* Effect.promise(() => carrier.fake.ended(providerCallId))
        let run: any
        const deadline = Date.now() + 30_000
        do {
          run = yield* runOf(s, runId)
          if (run.is_completed && run.gathered_context?.city !== undefined && run.transcript_url !== null) break
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
        } while (Date.now() < deadline)

        // The LLM saw each node's prompt with the contact's variables rendered, and the node's tools.
        const requests = llmRequests.slice(before)
        expect(requests.length).toBe(4)
        expect(requests[0]!.body.messages[0].content).toBe("You are calling Ada about the solar panels. If they are interested, qualify them.")
        expect(toolNames(requests[0]!)).toEqual(["qualify", "end_call"])
        expect(requests[0]!.body.messages.slice(1)).toEqual([
          { role: "assistant", content: "Hello Ada, this is Acme." },
          { role: "user", content: "Yes, I am interested." }
        ])
        expect(requests[1]!.body.messages[0].content).toBe("Ask Ada which city they live in.")
        expect(toolNames(requests[1]!)).toEqual(["done", "end_call", "extract_variables"])
        expect(requests[2]!.body.messages.at(-1)).toEqual({ role: "user", content: "I live in Paris." })
        expect(requests[3]!.body.tools).toBeUndefined()

        // The run: gathered context, disposition, transcript, recordings, usage, transitions.
        expect(run.is_completed).toBe(true)
        expect(run.gathered_context).toMatchObject({ city: "Paris", call_disposition: "interested", outcome: "completed", end_reason: "end_call_tool" })
        const events = run.logs.realtime_feedback_events
        expect(events.filter((e: any) => e.type === "rtf-node-transition").map((e: any) => e.payload.node_id)).toEqual(["start", "ask"])
        expect(events.some((e: any) => e.type === "rtf-function-call-end" && e.payload.function_name === "extract_variables")).toBe(true)
        expect(run.logs.transcript.map((t: any) => [t.role, t.text])).toEqual([
          ["assistant", "Hello Ada, this is Acme."],
          ["user", "Yes, I am interested."],
          ["assistant", "Which city do you live in?"],
          ["user", "I live in Paris."],
          ["assistant", "Thank you, goodbye."]
        ])
        expect(run.logs.turn_latency_ms.length).toBe(2)
        // The server's default detector decided the turns on the synthesized speech.
        expect(run.logs.voice_activity_detector).toBe("silero")
        expect(run.logs.telephony_status_callbacks.length).toBeGreaterThan(0)
        // Four replies of the fake: 100 prompt tokens each; completion tokens are the replies' word counts (1 + 6 + 1 + 3).
        expect(run.usage_info).toMatchObject({
          llm: { "openai:fake-model": { prompt_tokens: 400, completion_tokens: 11, total_tokens: 411 } },
          call_duration_seconds: expect.any(Number)
        })
        expect(run.usage_info.tts.local).toBe("Hello Ada, this is Acme.Which city do you live in?Thank you, goodbye.".length)
        expect(run.usage_info.stt.scripted).toBeGreaterThan(2)
        expect(run.cost_info).toMatchObject({
          llm_cost_usd: 0.000422,
          tts_cost_usd: 0,
          total_cost_usd: 0.000422,
          unpriced: ["stt:scripted"],
          call_duration_seconds: expect.any(Number)
        })

        const transcript = yield* download(run.transcript_public_url)
        expect(transcript.status).toBe(200)
        const text = new TextDecoder().decode(transcript.body)
        expect(text).toMatch(/^\[\d{4}-\d\d-\d\dT[^\]]+\] assistant: Hello Ada, this is Acme\.\n/)
        expect(text).toContain("] user: I live in Paris.\n")
        for (const key of ["recording_public_url", "user_recording_public_url", "bot_recording_public_url"]) {
          const wav = yield* download(run[key])
          expect(wav.status).toBe(200)
          expect(new TextDecoder().decode(wav.body.slice(0, 4))).toBe("RIFF")
          expect(Math.abs(wavSeconds(wav.body) - run.usage_info.conversation_duration_seconds)).toBeLessThan(0.05)
        }
        // The caller's track holds what they said: their speech is loud where the agent's track is quiet.
        expect(wavSeconds((yield* download(run.user_recording_public_url)).body)).toBeGreaterThan(3)
      }), 120_000)

    it.effect("barge-in: the caller talks over the agent; the playback is cleared within 100 ms of the VAD's decision and the transcript keeps what was played", () =>
      Effect.gen(function*() {
        const { carrier, llmRequests } = yield* Fakes
        const s = yield* setup(bargeInDefinition)
        callerLines = ["Wait, I have a question."]
        const { leg, providerCallId, runId } = yield* placeTalkingCall(s.apiKey, s.agent.workflow_uuid)
        // The agent speaks first (no greeting): a long reply. After a second of it, the caller talks.
        yield* eventually(() => leg.received().length > leg.sampleRate, "the agent to be speaking", 30_000)
        const before = llmRequests.length
        yield* say(leg, "Wait, I have a question.")
        yield* eventually(() => leg.clears() >= 1, "the playback to be cleared", 30_000)
        yield* eventually(() => llmRequests.length > before, "the agent to answer the caller", 30_000)
        // The agent answers, ends the call and says goodbye.
        yield* Effect.promise(() => carrier.fake.ended(providerCallId))
        let run: any
        const deadline = Date.now() + 30_000
        do {
          run = yield* runOf(s, runId)
          if (run.logs?.realtime_feedback_events !== undefined) break
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
        } while (Date.now() < deadline)
        const interruption = run.logs.realtime_feedback_events.find((e: any) => e.type === "rtf-interruption")
        expect(interruption).toBeDefined()
        expect(interruption.payload.cleared_at_ms - interruption.payload.decided_at_ms).toBeLessThan(100)
        const [first, user, answer] = run.logs.transcript
        expect(first).toMatchObject({ role: "assistant", interrupted: true })
        expect(first.text.length).toBeGreaterThan(0)
        expect(first.text.length).toBeLessThan("Let me tell you about our plans. The first plan costs ten dollars. The second plan costs twenty dollars. The third plan costs thirty dollars and includes everything we offer today.".length)
        expect(user).toMatchObject({ role: "user", text: "Wait, I have a question." })
        expect(answer).toMatchObject({ role: "assistant", text: "Sorry, go ahead. Bye now." })
        // What the caller heard is less than what was sent: the clear dropped the rest.
        expect(leg.heard().length).toBeLessThan(leg.received().length + 1)
      }), 120_000)
  })
}
