/**
 * Recorded speech on real calls, end to end through the whole server (the fake Twilio carrier, the
 * fake OpenAI-compatible LLM, the scripted recognizer, espeak-ng for the person and the agent's other
 * replies): an agent whose greeting is an uploaded WAV recording and whose first transition plays
 * another one. The caller's side receives those recordings' audio (each a tone of its own frequency,
 * found in what the carrier received and in the bot track), the transcript and the LLM's history hold
 * the recordings' transcripts as the agent's words. A campaign CSV's greeting_override columns replace
 * the greeting per contact; a recording deleted after the agent was saved falls back to the text
 * greeting and is logged. On SQLite and PostgreSQL.
 */
import { defaultPrices } from "@agentline/voice/session/Costs"
import { Uploads } from "@agentline/core/uploads/Uploads"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { agentFinishedSpeaking, download, Fakes, placeTalkingCall, say, voiceLayer } from "./PhoneCallHarness.js"
import { eventually } from "../contract/ContractMedia.js"
import { call, dialects, seedOrganization } from "../Harness.js"
import { freshNumber } from "../contract/Contract.js"
import { createRecording, toneSeconds, toneShare, toneWav } from "../RecordingFixtures.js"
import { definition } from "./ConversationScript.js"

/** What the caller of the next call says, in order (the scripted recognizer's lines). */
let callerLines: ReadonlyArray<string> = []

const GREETING_HZ = 1000
const TRANSITION_HZ = 600
const GREETING_WORDS = "Hello from the recorded greeting."
const TRANSITION_WORDS = "One moment, let me note that."

/** The demo agent (`ConversationScript`), its greeting and first transition played from recordings. */
const recordedDefinition = (greetingId: string, transitionId: string) => ({
  ...definition,
  nodes: definition.nodes.map((n) =>
    n.id === "start" ? { ...n, data: { ...n.data, greeting_type: "audio", greeting_recording_id: greetingId } } : n
  ),
  edges: definition.edges.map((e) =>
    e.id === "e1" ? { ...e, data: { ...e.data, transition_speech_type: "audio", transition_speech_recording_id: transitionId } } : e
  )
})

/** The samples of a 16-bit mono WAV (the run's recordings), with its rate. */
const wavSamples = (wav: Uint8Array) => {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength)
  const samples = new Int16Array(view.getUint32(40, true) / 2)
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(44 + i * 2, true)
  return { sampleRate: view.getUint32(24, true), samples }
}

/** The run once the call is over and the runtime has written its results. */
const finishedRun = (apiKey: string, agentId: number, runId: number, until = Date.now() + 90_000) =>
  Effect.gen(function*() {
    let run: any
    do {
      run = (yield* call("GET", `/api/v1/workflow/${agentId}/runs/${runId}`, { apiKey })).body
      if (run.is_completed === true && run.gathered_context?.end_reason !== undefined && run.logs?.transcript !== undefined) break
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
    } while (Date.now() < until)
    return run
  })

for (const dialect of dialects) {
  layer(voiceLayer(dialect, () => callerLines, defaultPrices), { timeout: "150 seconds", excludeTestServices: true })(`recorded speech on calls [${dialect}]`, (it) => {
    it.effect("the greeting and a transition play uploaded recordings: the caller receives their audio, the transcript their words", () =>
      Effect.gen(function*() {
        const { carrier, llmRequests } = yield* Fakes
        const org = yield* seedOrganization()
        // Recorded at rates other than the line's (8 kHz): stereo 44.1 kHz and mono 16 kHz.
        const greeting = yield* createRecording(
          org.apiKey,
          toneWav({ sampleRate: 44100, channels: 2, seconds: 1.5, frequency: GREETING_HZ, amplitude: 0.4 }),
          GREETING_WORDS
        )
        const transition = yield* createRecording(
          org.apiKey,
          toneWav({ sampleRate: 16000, channels: 1, seconds: 1, frequency: TRANSITION_HZ, amplitude: 0.4 }),
          TRANSITION_WORDS
        )
        const callerId = freshNumber("+1415667")
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
          body: {
            name: "Recorded agent",
            workflow_definition: recordedDefinition(greeting.recording_id, transition.recording_id),
            workflow_configurations: { smart_turn_stop_secs: 0.5 }
          }
        })
        expect(agent.status, JSON.stringify(agent.body)).toBe(200)

        callerLines = ["Yes, I am interested.", "I live in Paris."]
        const before = llmRequests.length
        const { leg, providerCallId, runId } = yield* placeTalkingCall(org.apiKey, agent.body.workflow_uuid, { first_name: "Ada", product: "solar panels" })

        const greeted = yield* agentFinishedSpeaking(leg, 0, "the recorded greeting")
        // What the caller received first is the greeting recording: its tone, for its length (at the line's rate).
        const afterGreeting = leg.received()
        expect(toneShare(afterGreeting.subarray(0, leg.sampleRate / 10), leg.sampleRate, GREETING_HZ)).toBeGreaterThan(0.8)
        expect(toneSeconds(afterGreeting, leg.sampleRate, GREETING_HZ)).toBeGreaterThanOrEqual(1.4)
        expect(afterGreeting.length / leg.sampleRate).toBeCloseTo(1.5, 1)
        expect(toneSeconds(afterGreeting, leg.sampleRate, TRANSITION_HZ)).toBe(0)

        yield* say(leg, "Yes, I am interested.")
        const asked = yield* agentFinishedSpeaking(leg, greeted, "the transition recording and the question")
        // The transition recording, then the synthesized question.
        const transitionAudio = leg.received().subarray(greeted, asked)
        expect(toneSeconds(transitionAudio, leg.sampleRate, TRANSITION_HZ)).toBeGreaterThanOrEqual(0.9)
        expect(toneShare(transitionAudio.subarray(0, leg.sampleRate / 10), leg.sampleRate, TRANSITION_HZ)).toBeGreaterThan(0.8)
        expect(transitionAudio.length / leg.sampleRate).toBeGreaterThan(1.5)
        yield* say(leg, "I live in Paris.")
        yield* Effect.promise(() => carrier.fake.ended(providerCallId))
        const run = yield* finishedRun(org.apiKey, agent.body.id, runId)

        expect(run.gathered_context).toMatchObject({ city: "Paris", end_reason: "end_call_tool" })
        expect(run.logs.transcript.map((t: any) => [t.role, t.text])).toEqual([
          ["assistant", GREETING_WORDS],
          ["user", "Yes, I am interested."],
          ["assistant", `${TRANSITION_WORDS} Which city do you live in?`],
          ["user", "I live in Paris."],
          ["assistant", "Thank you, goodbye."]
        ])
        // The model saw the recording's words as what the agent said.
        expect(llmRequests.slice(before)[0]!.body.messages[1]).toEqual({ role: "assistant", content: GREETING_WORDS })
        // Recordings are not synthesized speech: only the replies count as TTS characters.
        expect(run.usage_info.tts.local).toBe("Which city do you live in?Thank you, goodbye.".length)
        expect(run.logs.realtime_feedback_events.filter((e: any) => e.type === "rtf-pipeline-error")).toEqual([])
        const text = new TextDecoder().decode((yield* download(run.transcript_public_url)).body)
        expect(text).toMatch(new RegExp(`^\\[[^\\]]+\\] assistant: ${GREETING_WORDS.replace(".", "\\.")}\\n`))
        // The bot track and the mixed recording carry the greeting at the start of the call.
        const bot = wavSamples((yield* download(run.bot_recording_public_url)).body)
        expect(toneSeconds(bot.samples, bot.sampleRate, GREETING_HZ)).toBeGreaterThanOrEqual(1.4)
        expect(toneSeconds(bot.samples, bot.sampleRate, TRANSITION_HZ)).toBeGreaterThanOrEqual(0.9)
        const mixed = wavSamples((yield* download(run.recording_public_url)).body)
        expect(toneSeconds(mixed.samples.subarray(0, mixed.sampleRate * 2), mixed.sampleRate, GREETING_HZ)).toBeGreaterThanOrEqual(1.4)
      }), 150_000)

    it.effect("a campaign CSV's greeting_override columns replace the greeting per contact: text, a recording, or the agent's own", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const override = yield* createRecording(
          org.apiKey,
          toneWav({ sampleRate: 8000, channels: 1, seconds: 1, frequency: GREETING_HZ, amplitude: 0.4 }),
          "This is a recorded hello just for you."
        )
        callerLines = ["Yes, I am interested.", "I live in Paris."]
        const simulator = yield* call("POST", "/api/v1/organizations/telephony-configs", {
          apiKey: org.apiKey,
          body: { name: "sim", config: { provider: "simulator", ring_seconds: 0.2, callee_lines: callerLines }, is_default_outbound: true }
        })
        expect(simulator.status).toBe(200)
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: { name: "Overridden", workflow_definition: definition, workflow_configurations: { smart_turn_stop_secs: 0.5 } }
        })
        expect(agent.status).toBe(200)
        const csv = "phone_number,first_name,product,greeting_override_type,greeting_override_text,greeting_override_recording_id\n" +
          "+14155550161,Ada,solar panels,text,\"Hi {{first_name}}, it's Acme again.\",\n" +
          `+14155550162,Grace,heat pumps,audio,,${override.recording_id}\n` +
          "+14155550163,Linus,batteries,,,\n"
        const uploaded = yield* (yield* Uploads).store(org.principal, "contacts.csv", new TextEncoder().encode(csv)).pipe(Effect.orDie)
        const created = yield* call("POST", "/api/v1/campaign/create", {
          apiKey: org.apiKey,
          body: { name: "overrides", workflow_id: agent.body.id, source_type: "csv", source_id: uploaded, telephony_configuration_id: simulator.body.id, max_concurrency: 3 }
        })
        expect(created.status, JSON.stringify(created.body)).toBe(200)
        expect((yield* call("POST", `/api/v1/campaign/${created.body.id}/start`, { apiKey: org.apiKey })).status).toBe(200)
        let campaign: any
        const deadline = Date.now() + 120_000
        do {
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 250)))
          campaign = (yield* call("GET", `/api/v1/campaign/${created.body.id}`, { apiKey: org.apiKey })).body
        } while (campaign.state !== "completed" && Date.now() < deadline)
        expect(campaign.state).toBe("completed")
        const listed = (yield* call("GET", `/api/v1/campaign/${created.body.id}/runs`, { apiKey: org.apiKey })).body
        const runs: ReadonlyArray<any> = listed.runs ?? listed.items ?? listed
        const greetings: Record<string, unknown> = {}
        for (const r of runs) {
          const run = yield* finishedRun(org.apiKey, agent.body.id, r.id)
          const name = run.initial_context.first_name as string
          expect(run.initial_context.greeting_override_type, "the override columns are not copied as they are").toBeUndefined()
          // The agent's first words (the callee may talk over the greeting when the machine is busy).
          greetings[name] = { override: run.initial_context.greeting_override, said: run.logs.transcript.find((t: any) => t.role === "assistant") }
          if (name === "Grace") {
            const bot = wavSamples((yield* download(run.bot_recording_public_url)).body)
            expect(toneSeconds(bot.samples.subarray(0, bot.sampleRate * 2), bot.sampleRate, GREETING_HZ)).toBeGreaterThanOrEqual(0.9)
          }
        }
        expect(greetings).toEqual({
          Ada: { override: { type: "text", text: "Hi {{first_name}}, it's Acme again." }, said: expect.objectContaining({ role: "assistant", text: "Hi Ada, it's Acme again." }) },
          Grace: {
            override: { type: "audio", recording_id: override.recording_id },
            said: expect.objectContaining({ role: "assistant", text: "This is a recorded hello just for you." })
          },
          Linus: { override: undefined, said: expect.objectContaining({ role: "assistant", text: "Hello Linus, this is Acme." }) }
        })
      }), 150_000)

    it.effect("a recording deleted after the agent was saved: the call falls back to the text greeting and the run says why", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const greeting = yield* createRecording(org.apiKey, toneWav({ sampleRate: 8000, channels: 1, seconds: 0.5, frequency: GREETING_HZ }), GREETING_WORDS)
        callerLines = ["Yes, I am interested.", "I live in Paris."]
        expect((yield* call("POST", "/api/v1/organizations/telephony-configs", {
          apiKey: org.apiKey,
          body: { name: "sim", config: { provider: "simulator", ring_seconds: 0.2, callee_lines: callerLines }, is_default_outbound: true }
        })).status).toBe(200)
        // The transition plays the same recording: gone too, and it has no text, so nothing is said there.
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: {
            name: "Fallback",
            workflow_definition: recordedDefinition(greeting.recording_id, greeting.recording_id),
            workflow_configurations: { smart_turn_stop_secs: 0.5 }
          }
        })
        expect(agent.status).toBe(200)
        expect((yield* call("DELETE", `/api/v1/workflow-recordings/${greeting.recording_id}`, { apiKey: org.apiKey })).status).toBe(200)
        const placed = yield* call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, {
          apiKey: org.apiKey,
          body: { phone_number: "+14155550171", initial_context: { first_name: "Ada", product: "solar panels" } }
        })
        expect(placed.status).toBe(200)
        const run = yield* finishedRun(org.apiKey, agent.body.id, placed.body.workflow_run_id)
        expect(run.gathered_context).toMatchObject({ city: "Paris", end_reason: "end_call_tool" })
        expect(run.logs.transcript.map((t: any) => [t.role, t.text])).toEqual([
          ["assistant", "Hello Ada, this is Acme."],
          ["user", "Yes, I am interested."],
          ["assistant", "Which city do you live in?"],
          ["user", "I live in Paris."],
          ["assistant", "Thank you, goodbye."]
        ])
        const errors = run.logs.realtime_feedback_events.filter((e: any) => e.type === "rtf-pipeline-error").map((e: any) => e.payload)
        expect(errors).toEqual([
          { error: `recording '${greeting.recording_id}' does not exist in the organization (deleted or never created); the text is said instead`, fatal: false },
          { error: `recording '${greeting.recording_id}' does not exist in the organization (deleted or never created); nothing is said instead`, fatal: false }
        ])
      }), 120_000)
    // Runtime behaviour, the same on either database: run once.
    if (dialect === "sqlite") {
      it.effect("barge-in cuts a recorded greeting on a node with allow_interrupt: cleared, and the transcript keeps the words played", () =>
        Effect.gen(function*() {
          const { carrier } = yield* Fakes
          const org = yield* seedOrganization()
          const words = "Welcome to Acme. We have many plans to tell you about today, so please listen carefully to every one of them."
          const long = yield* createRecording(org.apiKey, toneWav({ sampleRate: 16000, channels: 1, seconds: 6, frequency: GREETING_HZ, amplitude: 0.4 }), words)
          const callerId = freshNumber("+1415668")
          carrier.fake.own(callerId)
          const config = yield* call("POST", "/api/v1/organizations/telephony-configs", {
            apiKey: org.apiKey,
            body: { name: "twilio", config: { provider: "twilio", ...carrier.config({ machineDetection: false }) }, is_default_outbound: true }
          })
          yield* call("POST", `/api/v1/organizations/telephony-configs/${config.body.id}/phone-numbers`, {
            apiKey: org.apiKey,
            body: { address: callerId, is_default_caller_id: true }
          })
          const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
            apiKey: org.apiKey,
            body: {
              name: "Interruptible",
              workflow_definition: {
                nodes: [
                  {
                    id: "start",
                    type: "startCall",
                    position: { x: 0, y: 0 },
                    data: { name: "Start", prompt: "Barge-in agent: present the plans.", allow_interrupt: true, greeting_type: "audio", greeting_recording_id: long.recording_id }
                  },
                  { id: "bye", type: "endCall", position: { x: 0, y: 100 }, data: { name: "Bye", prompt: "Say goodbye." } }
                ],
                edges: [{ id: "e1", source: "start", target: "bye", data: { label: "done", condition: "Done" } }]
              },
              workflow_configurations: { smart_turn_stop_secs: 0.5 }
            }
          })
          expect(agent.status, JSON.stringify(agent.body)).toBe(200)
          callerLines = ["Wait, I have a question."]
          const { leg, providerCallId, runId } = yield* placeTalkingCall(org.apiKey, agent.body.workflow_uuid)
          yield* eventually(() => leg.received().length > leg.sampleRate, "the recorded greeting to be playing", 30_000)
          yield* say(leg, "Wait, I have a question.")
          yield* eventually(() => leg.clears() >= 1, "the playback to be cleared", 30_000)
          yield* Effect.promise(() => carrier.fake.ended(providerCallId))
          const run = yield* finishedRun(org.apiKey, agent.body.id, runId)
          const [first, user] = run.logs.transcript
          expect(first).toMatchObject({ role: "assistant", interrupted: true })
          expect(words.startsWith(first.text)).toBe(true)
          expect(first.text.length).toBeGreaterThan(0)
          expect(first.text.length).toBeLessThan(words.length)
          expect(user).toMatchObject({ role: "user", text: "Wait, I have a question." })
          // The caller heard less than the whole recording.
          expect(toneSeconds(leg.heard(), leg.sampleRate, GREETING_HZ)).toBeLessThan(5)
          expect(run.logs.realtime_feedback_events.some((e: any) => e.type === "rtf-interruption")).toBe(true)
        }), 120_000)
    }
  })
}
