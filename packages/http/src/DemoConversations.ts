/**
 * `npm run demo -- --conversations`: agents that talk. This process serves the API on a free loopback
 * port (its public URL) and runs a small campaign on the simulator whose callee talks: each answered
 * call connects to the media stream, a simulated person says its lines in its own synthesized voice,
 * the agent hears them (the configured speech-to-text, `local` by default), answers through the
 * configured language model and speaks (the configured text-to-speech). At the end it prints each
 * run's transcript, gathered context and recording links.
 *
 * Without `AGENTLINE_LLM` there is no model to ask, so the demo starts the repository's FAKE
 * OpenAI-compatible server, which answers each node with scripted replies (`scriptedReplies`); it says
 * so when it starts. What the agent heard is real either way: the transcript shows what the offline
 * recognizer made of the callee's synthesized voice.
 */
import { Campaigns } from "@agentline/core/campaigns/Campaigns"
import { TelephonyConfigs } from "@agentline/core/telephony/TelephonyConfigs"
import { Uploads } from "@agentline/core/uploads/Uploads"
import { Runs } from "@agentline/core/runs/Runs"
import { Workflows } from "@agentline/core/workflows/Workflows"
import * as ChatLanguageModel from "@agentline/voice-openai/ChatLanguageModel"
import { type Received, reply, startFakeOpenAi } from "@agentline/voice-openai/testing/FakeOpenAi"
import { AgentLanguageModel } from "@agentline/voice/session/LanguageModelTools"
import { OpenAiClient } from "@effect/ai-openai"
import { FetchHttpClient, HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import { Config, Effect, Layer, Option, Redacted, Schema } from "effect"
import { CreateCampaignRequest } from "@agentline/api/campaigns/Campaign"
import { createServer } from "node:http"
import * as NodePath from "node:path"
import * as Demo from "./Demo.js"
import * as Server from "./Server.js"
import { ServerConfig, type ServerSettings } from "./ServerConfig.js"
import * as VoiceServices from "./voice/VoiceServices.js"

/** The demo's agent: greet and qualify, ask the city (extracted), say goodbye. */
export const agentDefinition = {
  nodes: [
    {
      id: "start",
      type: "startCall",
      position: { x: 0, y: 0 },
      data: {
        name: "Start",
        greeting: "Hello {{first_name}}, this is Acme.",
        prompt: "You are calling {{first_name}} about the {{product}}. If they are interested, qualify them."
      }
    },
    {
      id: "ask",
      type: "agentNode",
      position: { x: 0, y: 100 },
      data: {
        name: "Ask city",
        prompt: "Ask {{first_name}} which city they live in.",
        extraction_enabled: true,
        extraction_variables: [{ name: "city", type: "string", prompt: "The caller's city" }]
      }
    },
    { id: "bye", type: "endCall", position: { x: 0, y: 200 }, data: { name: "Bye", prompt: "Say goodbye." } }
  ],
  edges: [
    { id: "e1", source: "start", target: "ask", data: { label: "qualify", condition: "The caller is interested" } },
    { id: "e2", source: "ask", target: "bye", data: { label: "done", condition: "The city is known" } }
  ]
}

/** What the simulated person says, a line per turn. */
export const calleeLines = ["Yes, I am interested.", "I live in Paris."]

const toolNames = (request: Received): ReadonlyArray<string> => (request.body.tools ?? []).map((t: { readonly function: { readonly name: string } }) => t.function.name)

/**
 * The FAKE language model's replies to `agentDefinition`, chosen by the node a request comes from (its
 * tools) and by what came last; it never reads what the caller said.
 */
export const scriptedReplies = (request: Received) => {
  const tools = toolNames(request)
  const lastRole = request.body.messages.at(-1)?.role
  const system: string = request.body.messages[0]?.content ?? ""
  // Answering machine detection (voicemail_detection): the only request that reads the callee's words.
  if (system.includes("answering machine")) {
    const heard: string = request.body.messages.at(-1)?.content ?? ""
    return reply(/message|not available|reached/i.test(heard) ? "voicemail" : "human")
  }
  if (tools.includes("qualify")) return reply("", [{ name: "qualify", arguments: {} }])
  if (tools.includes("extract_variables")) {
    return lastRole === "user"
      ? reply("", [{ name: "extract_variables", arguments: { city: "Paris" } }, { name: "end_call", arguments: { disposition: "interested" } }])
      : reply("Which city do you live in?")
  }
  return reply("Thank you, goodbye.")
}

/** The configured speech and language services; the fake language model when none is configured. */
const voiceServices = Effect.gen(function*() {
  const configured = yield* Config.option(Config.string("AGENTLINE_LLM"))
  if (Option.isSome(configured) && configured.value.trim() !== "") {
    console.log(`Language model: ${configured.value} (AGENTLINE_LLM).`)
    return VoiceServices.layerConfig
  }
  const fake = yield* startFakeOpenAi([], scriptedReplies)
  console.log(`Language model: none configured (AGENTLINE_LLM), so this demo uses the repository's FAKE OpenAI-compatible ` +
    `server at ${fake.url}, which answers with scripted replies and never reads what the caller said.`)
  const languageModel = Layer.effect(
    AgentLanguageModel,
    Effect.map(ChatLanguageModel.make({ model: "scripted-fake" }), (model) => Option.some({ name: "fake:scripted", model }))
  ).pipe(Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make("not-a-key"), apiUrl: fake.url })), Layer.provide(FetchHttpClient.layer))
  return Layer.merge(VoiceServices.layerConfig, languageModel)
})

export const run = (options: {
  readonly contacts: number
  readonly settings: ServerSettings
  readonly database: Layer.Layer<SqlClient.SqlClient>
}) =>
  Effect.gen(function*() {
    const port = yield* Demo.freePort
    const publicUrl = `http://127.0.0.1:${port}`
    const services = yield* voiceServices
    const served = HttpApiBuilder.serve().pipe(
      Layer.provideMerge(Server.HttpAppLive),
      Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })),
      Layer.provideMerge(ServerConfig.layer({ ...options.settings, port, host: "127.0.0.1", publicUrl, voiceServices: services })),
      Layer.provideMerge(options.database)
    )
    yield* conversations(options.contacts, publicUrl, options.settings.dataDir).pipe(Effect.provide(served))
  }).pipe(Effect.scoped)

const conversations = (contacts: number, publicUrl: string, dataDir: string) =>
  Effect.gen(function*() {
    const started = Date.now()
    const { email, name, principal } = yield* Demo.demoOrganization("demo-talk", 10)
    yield* (yield* TelephonyConfigs).create(principal, {
      name: "Talking simulator",
      is_default_outbound: true,
      config: { provider: "simulator", ring_seconds: 1, callee_lines: calleeLines }
    })
    const agent = yield* (yield* Workflows).create(principal, {
      name: "Demo talking agent",
      workflow_definition: agentDefinition,
      workflow_configurations: { smart_turn_stop_secs: 0.6 }
    })
    const people = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Margaret", "Ken", "Frances", "John"]
    const csv = ["phone_number,first_name,product", ...Array.from({ length: contacts }, (_, i) =>
      `+1415550${String(1000 + i).padStart(4, "0")},${people[i % people.length]},solar panels`)].join("\n") + "\n"
    const fileKey = yield* (yield* Uploads).store(principal, "talk.csv", new TextEncoder().encode(csv))
    const campaigns = yield* Campaigns
    // The request as a client sends it, decoded as the API decodes it (defaults filled in).
    const campaign = yield* campaigns.create(principal, yield* Schema.decodeUnknown(CreateCampaignRequest)({
      name: "Demo conversations",
      workflow_id: agent.id,
      source_type: "csv",
      source_id: fileKey,
      max_concurrency: Math.min(contacts, 10)
    }).pipe(Effect.orDie))
    console.log(`Organization '${name}', agent ${agent.id}, campaign ${campaign.id}: ${contacts} contacts; ` +
      `this server at ${publicUrl} (the simulated callees connect to its media streams).`)
    yield* campaigns.start(principal, campaign.id)
    while (true) {
      const now = yield* campaigns.get(principal, campaign.id)
      const line = `campaign ${now.state}: ${now.processed_rows}/${now.total_rows} contacts done, ` +
        `${((Date.now() - started) / 1000).toFixed(0)} s`
      if (process.stdout.isTTY === true) process.stdout.write(`\r${line}`)
      if (["completed", "failed", "canceled", "paused"].includes(now.state)) {
        console.log(process.stdout.isTTY === true ? "" : line)
        break
      }
      yield* Effect.sleep("500 millis")
    }
    const runs = yield* (yield* Runs).page(principal, { campaignId: campaign.id }, 1, contacts)
    // The run's artifacts are written as the call closes: give the last ones a moment.
    yield* Effect.sleep("1 second")
    for (const listed of runs.runs) {
      const run = yield* (yield* Runs).get(principal, agent.id, listed.id)
      console.log(`\nRun ${run.id} (${run.initial_context?.first_name}): ${run.gathered_context?.outcome}, ` +
        `${run.usage_info?.call_duration_seconds ?? "?"} s, city ${JSON.stringify(run.gathered_context?.city)}, ` +
        `disposition ${JSON.stringify(run.gathered_context?.call_disposition)}`)
      const transcript: unknown = run.logs?.["transcript"]
      for (const turn of Array.isArray(transcript) ? transcript : []) {
        const said = (key: string): unknown => (typeof turn === "object" && turn !== null ? Reflect.get(turn, key) : undefined)
        console.log(`  ${said("role") === "assistant" ? "agent " : "callee"}: ${String(said("text"))}`)
      }
      const stored = yield* (yield* Runs).findById(run.id)
      const artifacts = Option.isSome(stored) ? stored.value.artifacts : undefined
      for (const [what, key] of [["transcript", artifacts?.transcript], ["recording", artifacts?.recording]] as const) {
        console.log(`  ${what}: ${key === null || key === undefined ? "not stored" : NodePath.join(dataDir, "blobs", key)}`)
      }
    }
    console.log(`\nThe callee said ${JSON.stringify(calleeLines)}; the "callee" lines above are what the agent heard.`)
    console.log(`The runs stay in ${dataDir}: \`npm start\` serves them, with download links for transcripts and ` +
      `recordings, at GET /api/v1/workflow/${agent.id}/runs/{run_id} (with an API key of organization '${name}').`)
    console.log(Demo.loginLine(email))
  })
