/**
 * The simulator speaks: a campaign on the simulator provider whose callee has lines holds real
 * conversations through the whole server — the simulated person connects to the media stream, says
 * its lines in its own synthesized voice (espeak-ng), takes turns with the agent, and hangs up after
 * the agent's last reply; each run carries its transcript and recordings. With voicemail detection on,
 * a callee that is an answering machine ends the attempt `voicemail`. On SQLite and PostgreSQL.
 */
import { Uploads } from "@agentline/core/uploads/Uploads"
import * as ChatLanguageModel from "@agentline/voice-openai/ChatLanguageModel"
import { type Received, startFakeOpenAi } from "@agentline/voice-openai/testing/FakeOpenAi"
import * as LocalTextToSpeech from "@agentline/voice-local/LocalTextToSpeech"
import { defaultPrices, Prices } from "@agentline/voice/session/Costs"
import { AgentLanguageModel, SpeechServiceNames } from "@agentline/voice/session/LanguageModelTools"
import * as ScriptedSpeechToText from "@agentline/voice/testing/ScriptedSpeechToText"
import { OpenAiClient } from "@effect/ai-openai"
import { FetchHttpClient } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { call, dialects, seedOrganization } from "../Harness.js"
import { freePort, liveApp } from "../contract/LiveServer.js"
import { bargeInDefinition, definition, respond } from "./ConversationScript.js"
import { startReceiver } from "../WebhookReceiver.js"
import { PrometheusMetrics } from "../../src/observability/Metrics.js"
import { type Family, parse, total } from "../PrometheusText.js"

/** `/metrics` as the server renders it (Effect's registry is the process's: the in-process server's metrics). */
const scrape: Effect.Effect<Map<string, Family>> = Effect.map(
  Effect.flatMap(PrometheusMetrics, (m) => m.render).pipe(Effect.provide(PrometheusMetrics.Default)),
  parse
)
const TURN_STAGES = ["end_of_speech", "recognition", "first_token", "first_audio"] as const

const CALLEE_LINES = ["Yes, I am interested.", "I live in Paris."]
const GREETING = "Hi, you have reached Ada. I cannot take your call right now. Please leave a message after the tone and I will call you back."
/** What the scripted recognizer reports for the calls of the running test. */
let heard: ReadonlyArray<string> = CALLEE_LINES
/** The requests the fake OpenAI-compatible server received. */
let llmRequests: ReadonlyArray<Received> = []

const voiceLayer = (dialect: "sqlite" | "pg") =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const port = yield* freePort
    const llm = yield* startFakeOpenAi([], respond)
    llmRequests = llm.received
    // An agent's model_overrides are built from the environment, as the defaults are in production.
    const saved = { url: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY }
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        process.env.OPENAI_BASE_URL = llm.url
        process.env.OPENAI_API_KEY = "sk-fake"
      }),
      () =>
        Effect.sync(() => {
          for (const [name, value] of [["OPENAI_BASE_URL", saved.url], ["OPENAI_API_KEY", saved.key]] as const) {
            if (value === undefined) delete process.env[name]
            else process.env[name] = value
          }
        })
    )
    const languageModel = Layer.effect(
      AgentLanguageModel,
      Effect.map(ChatLanguageModel.make({ model: "fake-model" }), (model) => Option.some({ name: "openai:fake-model", model }))
    ).pipe(Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make("sk-fake"), apiUrl: llm.url })), Layer.provide(FetchHttpClient.layer))
    const voiceServices = Layer.mergeAll(
      // The recognizer fake reports the callee's lines in order, one per utterance it finds in the audio.
      ScriptedSpeechToText.layer(() => heard),
      LocalTextToSpeech.portLayer().pipe(Layer.provide(NodeContext.layer)),
      languageModel,
      Layer.succeed(SpeechServiceNames, { stt: "scripted", tts: "local" }),
      Layer.succeed(Prices, defaultPrices)
    )
    // Webhooks to the test's receiver on 127.0.0.1.
    return liveApp(dialect, port, [], undefined, voiceServices, { webhooks: { allowPrivate: true, pollMillis: 100 } })
  }))

/** The run once the call is over and the runtime has written its results (real time, at most a minute). */
const finishedRun = (apiKey: string, agentId: number, runId: number) =>
  Effect.gen(function*() {
    let run: any
    const until = Date.now() + 60_000
    do {
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
      run = (yield* call("GET", `/api/v1/workflow/${agentId}/runs/${runId}`, { apiKey })).body
    } while ((run.is_completed !== true || run.gathered_context?.end_reason === undefined) && Date.now() < until)
    return run
  })

const download = (url: string) => Effect.promise(() => fetch(url).then(async (r) => ({ status: r.status, body: new Uint8Array(await r.arrayBuffer()) })))

for (const dialect of dialects) {
  layer(voiceLayer(dialect), { timeout: "150 seconds", excludeTestServices: true })(`the simulator speaks [${dialect}]`, (it) => {
    it.effect("a campaign on the simulator with callee lines: each contact's call is a conversation, with transcript and recordings", () =>
      Effect.gen(function*() {
        heard = CALLEE_LINES
        const org = yield* seedOrganization()
        const simulator = yield* call("POST", "/api/v1/organizations/telephony-configs", {
          apiKey: org.apiKey,
          body: {
            name: "talking simulator",
            config: { provider: "simulator", ring_seconds: 0.2, callee_lines: CALLEE_LINES },
            is_default_outbound: true
          }
        })
        expect(simulator.status, JSON.stringify(simulator.body)).toBe(200)
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: {
            name: "Talking agent",
            workflow_definition: definition,
            // Detection on: a person's first words must not be taken for a machine.
            workflow_configurations: { smart_turn_stop_secs: 0.5, voicemail_detection: { enabled: true, long_speech_timeout: 20 } }
          }
        })
        expect(agent.status).toBe(200)
        const csv = "phone_number,first_name,product\n+14155550101,Ada,solar panels\n+14155550102,Grace,heat pumps\n"
        const uploaded = yield* (yield* Uploads).store(org.principal, "contacts.csv", new TextEncoder().encode(csv)).pipe(Effect.orDie)
        const created = yield* call("POST", "/api/v1/campaign/create", {
          apiKey: org.apiKey,
          body: {
            name: "talking",
            workflow_id: agent.body.id,
            source_type: "csv",
            source_id: uploaded,
            telephony_configuration_id: simulator.body.id,
            max_concurrency: 2
          }
        })
        expect(created.status, JSON.stringify(created.body)).toBe(200)
        const before = yield* scrape
        expect((yield* call("POST", `/api/v1/campaign/${created.body.id}/start`, { apiKey: org.apiKey })).status).toBe(200)

        let campaign: any
        const deadline = Date.now() + 120_000
        do {
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 250)))
          campaign = (yield* call("GET", `/api/v1/campaign/${created.body.id}`, { apiKey: org.apiKey })).body
        } while (campaign.state !== "completed" && Date.now() < deadline)
        expect(campaign.state).toBe("completed")

        const runs = (yield* call("GET", `/api/v1/campaign/${created.body.id}/runs`, { apiKey: org.apiKey })).body
        const list: ReadonlyArray<any> = runs.runs ?? runs.items ?? runs
        expect(list.length).toBe(2)
        for (const listed of list) {
          let run: any
          const until = Date.now() + 30_000
          do {
            run = (yield* call("GET", `/api/v1/workflow/${agent.body.id}/runs/${listed.id}`, { apiKey: org.apiKey })).body
            if (run.transcript_url !== null && run.recording_url !== null) break
            yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
          } while (Date.now() < until)
          const name = run.initial_context.first_name
          expect(run.mode).toBe("simulator")
          expect(run.gathered_context).toMatchObject({ outcome: "completed", city: "Paris", call_disposition: "interested" })
          // The simulated person's lines, in turn with the agent's replies.
          expect(run.logs.transcript.map((t: any) => [t.role, t.text])).toEqual([
            ["assistant", `Hello ${name}, this is Acme.`],
            ["user", "Yes, I am interested."],
            ["assistant", "Which city do you live in?"],
            ["user", "I live in Paris."],
            ["assistant", "Thank you, goodbye."]
          ])
          expect(run.usage_info.call_duration_seconds).toBeGreaterThan(0)
          const callee = yield* download(run.user_recording_public_url)
          expect(callee.status).toBe(200)
          // Seconds of the callee's track, a 16-bit mono WAV: both lines, spoken.
          const view = new DataView(callee.body.buffer, callee.body.byteOffset, callee.body.byteLength)
          expect(view.getUint32(40, true) / 2 / view.getUint32(24, true)).toBeGreaterThan(2)
        }

        // The voice runtime's metrics moved (issue 25): every stage of the four caller turns (two per
        // call) in the turn latency histogram, the frames sent, and the late frames' series is there.
        const after = yield* scrape
        expect(after.get("agentline_turn_latency_seconds")?.type).toBe("histogram")
        for (const stage of TURN_STAGES) {
          const turns = total(after, "agentline_turn_latency_seconds", (l) => l.stage === stage) -
            total(before, "agentline_turn_latency_seconds", (l) => l.stage === stage)
          expect(turns, stage).toBeGreaterThanOrEqual(4)
        }
        // Seconds of agent speech, at 50 frames a second: both calls' three replies.
        expect(total(after, "agentline_frames_sent_total") - total(before, "agentline_frames_sent_total")).toBeGreaterThan(2 * 50)
        expect(after.get("agentline_frames_late_total")?.type).toBe("counter")
      }), 150_000)

    it.effect("after the conversation: run.ended and the agent's webhook node carry what it gathered, with its transcript", () =>
      Effect.gen(function*() {
        heard = CALLEE_LINES
        const receiver = yield* Effect.acquireRelease(Effect.promise(() => startReceiver()), (r) => Effect.promise(() => r.close()))
        const org = yield* seedOrganization()
        yield* call("POST", "/api/v1/organizations/telephony-configs", {
          apiKey: org.apiKey,
          body: { name: "talking", config: { provider: "simulator", ring_seconds: 0.2, callee_lines: CALLEE_LINES }, is_default_outbound: true }
        })
        const hook = {
          id: "crm",
          type: "webhook",
          position: { x: 300, y: 0 },
          data: {
            name: "CRM",
            enabled: true,
            http_method: "PUT",
            endpoint_url: `${receiver.url}/node?run={{workflow_run_id}}`,
            custom_headers: [{ key: "Authorization", value: "Bearer crm-token" }],
            payload_template: {
              run: "{{workflow_run_id}}",
              city: "{{gathered_context.city}}",
              gathered: "{{gathered_context}}",
              transcript: "{{transcript_url}}",
              note: "{{initial_context.first_name}} lives in {{gathered_context.city | somewhere}}"
            }
          }
        }
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: {
            name: "Hooked agent",
            workflow_definition: { ...definition, nodes: [...definition.nodes, hook] },
            workflow_configurations: { smart_turn_stop_secs: 0.5 }
          }
        })
        expect(agent.status, JSON.stringify(agent.body)).toBe(200)
        const endpoint = yield* call("POST", "/api/v1/organizations/webhooks", {
          apiKey: org.apiKey,
          body: { url: `${receiver.url}/events`, event_types: ["run.ended"] }
        })
        expect(endpoint.status).toBe(200)
        const placed = yield* call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, {
          apiKey: org.apiKey,
          body: { phone_number: "+14155550131", initial_context: { first_name: "Ada", product: "solar panels" } }
        })
        expect(placed.status).toBe(200)
        const runId = placed.body.workflow_run_id
        const until = Date.now() + 90_000
        while (receiver.received().length < 2 && Date.now() < until) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
        const ended = receiver.received().find((r) => r.json.type === "run.ended")
        const node = receiver.received().find((r) => r.json.type === undefined)
        // Both carry the conversation's results: they waited for the voice runtime, not just the hang-up.
        expect(ended?.json.data).toMatchObject({ run_id: runId, outcome: "completed", disposition: "interested", gathered_context: { city: "Paris" } })
        expect(ended?.json.data.links.transcript).toMatch(/\/public\/download\/workflow\/.+\/transcript$/)
        expect(node?.headers).toMatchObject({ authorization: "Bearer crm-token", "content-type": "application/json" })
        expect(node?.json).toMatchObject({ run: runId, city: "Paris", gathered: { city: "Paris", call_disposition: "interested" }, note: "Ada lives in Paris" })
        expect(node?.json.transcript).toBe(ended?.json.data.links.transcript === null ? "" : node?.json.transcript)
        expect((yield* download(node!.json.transcript)).status).toBe(200)
        // The node's result is in the run's logs.
        let run: any
        do {
          run = (yield* call("GET", `/api/v1/workflow/${agent.body.id}/runs/${runId}`, { apiKey: org.apiKey })).body
        } while (run.logs["webhook_node:crm"]?.status !== "delivered" && Date.now() < until)
        expect(run.logs["webhook_node:crm"]).toMatchObject({ node_name: "CRM", method: "PUT", status: "delivered", last_attempt: { status_code: 200 } })
      }).pipe(Effect.scoped), 120_000)

    const voicemailCall = (voicemailDetection: Record<string, unknown>) =>
      Effect.gen(function*() {
        heard = [GREETING]
        const org = yield* seedOrganization()
        const simulator = yield* call("POST", "/api/v1/organizations/telephony-configs", {
          apiKey: org.apiKey,
          body: { name: "machine", config: { provider: "simulator", ring_seconds: 0.2, callee_lines: [GREETING] }, is_default_outbound: true }
        })
        expect(simulator.status).toBe(200)
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: {
            name: "Detecting agent",
            workflow_definition: definition,
            workflow_configurations: { smart_turn_stop_secs: 0.8, voicemail_detection: { enabled: true, ...voicemailDetection } }
          }
        })
        expect(agent.status).toBe(200)
        const placed = yield* call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, {
          apiKey: org.apiKey,
          body: { phone_number: "+14155550111", initial_context: { first_name: "Ada", product: "solar panels" } }
        })
        expect(placed.status).toBe(200)
        const run = yield* finishedRun(org.apiKey, agent.body.id, placed.body.workflow_run_id)
        return run
      })

    it.effect("voicemail detection by the agent's model: the greeting's words end the attempt voicemail", () =>
      Effect.gen(function*() {
        const run = yield* voicemailCall({ long_speech_timeout: 60 })
        expect(run.gathered_context).toMatchObject({
          outcome: "voicemail",
          call_disposition: "voicemail",
          voicemail_detected: true,
          voicemail_detected_by: "language_model",
          end_reason: "voicemail_detected"
        })
        // The agent never answered the machine: the greeting, then nothing more.
        expect(run.logs.transcript.filter((t: any) => t.role === "assistant").map((t: any) => t.text)).toEqual(["Hello Ada, this is Acme."])
        expect(run.logs.realtime_feedback_events.some((e: any) => e.type === "rtf-voicemail-detected")).toBe(true)
      }), 90_000)

    // Runtime behaviour, the same on either database: run once.
    if (dialect === "sqlite") {
      it.effect("model_overrides: the agent's calls use the model it names, counted under that name; a bad one falls back and says so", () =>
        Effect.gen(function*() {
          heard = CALLEE_LINES
          const org = yield* seedOrganization()
          expect((yield* call("POST", "/api/v1/organizations/telephony-configs", {
            apiKey: org.apiKey,
            body: { name: "sim", config: { provider: "simulator", ring_seconds: 0.2, callee_lines: CALLEE_LINES }, is_default_outbound: true }
          })).status).toBe(200)
          const runWith = (modelOverrides: Record<string, unknown>) =>
            Effect.gen(function*() {
              const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
                apiKey: org.apiKey,
                body: {
                  name: `Overridden ${JSON.stringify(modelOverrides)}`,
                  workflow_definition: definition,
                  workflow_configurations: { smart_turn_stop_secs: 0.5, model_overrides: modelOverrides }
                }
              })
              expect(agent.status).toBe(200)
              const before = llmRequests.length
              const placed = yield* call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, {
                apiKey: org.apiKey,
                body: { phone_number: "+14155550123", initial_context: { first_name: "Ada", product: "solar panels" } }
              })
              expect(placed.status).toBe(200)
              const run = yield* finishedRun(org.apiKey, agent.body.id, placed.body.workflow_run_id)
              return {
                run,
                models: llmRequests.slice(before).map((r) => r.body.model),
                keys: llmRequests.slice(before).map((r) => r.authorization)
              }
            })

          const overridden = yield* runWith({ llm: "openai:override-model", tts: "local" })
          expect(overridden.run.gathered_context.city).toBe("Paris")
          expect(new Set(overridden.models)).toEqual(new Set(["override-model"]))
          expect(Object.keys(overridden.run.usage_info.llm)).toEqual(["openai:override-model"])

          // The organization's own OpenAI key, stored as a credential, for the overriding model's requests.
          const stored = yield* call("POST", "/api/v1/credentials", {
            apiKey: org.apiKey,
            body: { name: "our OpenAI key", credential_type: "api_key", credential_data: { api_key: "sk-org-stored" } }
          })
          expect(stored.status).toBe(200)
          const withOrgKey = yield* runWith({ llm: "openai:override-model", credentials: { openai: stored.body.uuid } })
          expect(withOrgKey.run.gathered_context.city).toBe("Paris")
          expect(new Set(withOrgKey.keys)).toEqual(new Set(["Bearer sk-org-stored"]))
          expect(new Set(overridden.keys)).toEqual(new Set(["Bearer sk-fake"]))

          const broken = yield* runWith({ llm: "nope:model" })
          expect(new Set(broken.models)).toEqual(new Set(["fake-model"]))
          const errors = broken.run.logs.realtime_feedback_events.filter((e: any) => e.type === "rtf-pipeline-error")
          expect(JSON.stringify(errors)).toContain("model_overrides: llm: AGENTLINE_LLM=nope:model: unknown provider")
        }), 150_000)

      it.effect("the simulated callee interrupts: an [interrupt] line cuts into the agent's long reply, which is cleared and cut short in the transcript", () =>
        Effect.gen(function*() {
          heard = ["Stop, that is enough."]
          const org = yield* seedOrganization()
          expect((yield* call("POST", "/api/v1/organizations/telephony-configs", {
            apiKey: org.apiKey,
            body: {
              name: "sim",
              config: { provider: "simulator", ring_seconds: 0.2, callee_lines: ["[interrupt] Stop, that is enough."] },
              is_default_outbound: true
            }
          })).status).toBe(200)
          const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
            apiKey: org.apiKey,
            body: { name: "Interrupted", workflow_definition: bargeInDefinition, workflow_configurations: { smart_turn_stop_secs: 0.5 } }
          })
          expect(agent.status).toBe(200)
          const placed = yield* call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, {
            apiKey: org.apiKey,
            body: { phone_number: "+14155550124" }
          })
          expect(placed.status).toBe(200)
          const run = yield* finishedRun(org.apiKey, agent.body.id, placed.body.workflow_run_id)
          const interruptions = run.logs.realtime_feedback_events.filter((e: any) => e.type === "rtf-interruption")
          expect(interruptions.length).toBe(1)
          // The agent's opening was cut: what the transcript keeps is a strict prefix of the reply.
          const full = "Let me tell you about our plans. The first plan costs ten dollars."
          const opening = run.logs.transcript[0]
          expect(opening.role).toBe("assistant")
          expect(full.startsWith(opening.text.slice(0, 20))).toBe(true)
          expect(opening.text.length).toBeLessThan(full.length)
          expect(run.logs.transcript.some((t: any) => t.role === "user" && t.text === "Stop, that is enough.")).toBe(true)
          expect(run.gathered_context.end_reason).toBe("end_call_tool")
        }), 150_000)
    }

    it.effect("a caller who asks not to be called again is put on the do-not-call list, with the run as its source", () =>
      Effect.gen(function*() {
        const optOut = ["Please do not call me again."]
        heard = optOut
        const org = yield* seedOrganization()
        expect((yield* call("POST", "/api/v1/organizations/telephony-configs", {
          apiKey: org.apiKey,
          body: { name: "sim", config: { provider: "simulator", ring_seconds: 0.2, callee_lines: optOut }, is_default_outbound: true }
        })).status).toBe(200)
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: { name: "Opt-out", workflow_definition: definition, workflow_configurations: { smart_turn_stop_secs: 0.5 } }
        })
        const to = "+14155550144"
        const placed = yield* call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, {
          apiKey: org.apiKey,
          body: { phone_number: to, initial_context: { first_name: "Ada", product: "solar panels" } }
        })
        expect(placed.status).toBe(200)
        const run = yield* finishedRun(org.apiKey, agent.body.id, placed.body.workflow_run_id)
        expect(run.gathered_context.do_not_call_requested).toBe(true)
        expect(run.logs.realtime_feedback_events.some((e: any) => e.type === "rtf-do-not-call")).toBe(true)
        const checked = yield* call("GET", `/api/v1/organizations/do-not-call/check?phone_number=${encodeURIComponent(to)}`, { apiKey: org.apiKey })
        expect(checked.body).toMatchObject({ listed: true, entry: { source: "run", run_id: placed.body.workflow_run_id } })
        expect(checked.body.entry.reason).toContain("do not call me again")
        const again = yield* call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, { apiKey: org.apiKey, body: { phone_number: to } })
        expect(again.status).toBe(409)
      }), 90_000)

    if (dialect === "sqlite") {
      it.effect("voicemail detection by a long unbroken greeting, without asking the model", () =>
        Effect.gen(function*() {
          const run = yield* voicemailCall({ use_workflow_llm: false, long_speech_timeout: 2 })
          expect(run.gathered_context).toMatchObject({ outcome: "voicemail", voicemail_detected_by: "long_speech", end_reason: "voicemail_detected" })
        }), 90_000)
    }
  })
}
