/**
 * `npm run bench:voice`: the voice runtime's own overhead and how many conversations one process holds,
 * written to bench/voice-results.md. A benchmark, not a test: numbers depend on the machine (and on
 * whatever else runs on it: the load average is recorded with the results).
 *
 * This process is the server, as deployed: the HTTP API, the dispatcher and the real voice runtime on
 * SQLite, with the Twilio adapter. The callers are another process (`voice-callers.ts`, forked): the
 * fake Twilio, on whose REST API the dispatcher places the calls, which fetches the answer's TwiML and
 * connects each answered call's media WebSocket to this server, where the callee talks: 20 ms µ-law
 * frames on the wall clock (an espeak-ng sentence, then silence), waiting for the agent's answer, the
 * agent's frames timed as they arrive over the socket. The speech services are zero-latency fakes: the
 * scripted recognizer, a synthesizer that returns 200 ms of tone per sentence at once, and the fake
 * OpenAI-compatible server on 127.0.0.1 answering "Okay." (an LLM turn includes a local HTTP round trip
 * and SSE parsing).
 *
 * - **Turn overhead**: the moment the endpointing delay has passed after the caller's last voiced frame
 *   → the first agent frame at the caller; and, as the runtime logs it, the VAD's end of speech plus
 *   the endpointing delay → the first agent frame sent (`logs.turn_latency_ms`).
 * - **Frame lateness**: for each agent utterance, frame n arriving at a_n is late by a_n − (a_0 + 20 ms × n)
 *   when positive (the caller's phone would have run dry, past the runtime's 60 ms lead).
 * - **Voice to voice**: the same, with the fakes slowed to published vendor latencies (a recognizer
 *   whose final comes 350 ms after the speech ends, Deepgram's P99; an LLM whose first token comes after
 *   420 ms; a synthesizer whose first audio comes after 75 ms, ElevenLabs Flash): the caller's last
 *   voiced frame → the first agent frame, against the sum of those latencies.
 *
 *   BENCH_VOICE_TURNS (default 200)                  turns of the overhead and voice-to-voice runs (5 calls at once)
 *   BENCH_VOICE_CALLS (default 5,25,50,100,150,200)  the capacity runs (3 turns a call); the knee is found among them
 *   BENCH_VOICE_OUT (default ./voice-results.md)     where the results are written (relative to bench/)
 *   BENCH_VOICE_PROFILE (unset)                      a directory: each run's CPU profile of the server process is written there
 *   AGENTLINE_VAD (default silero)                   the voice activity detector (`energy` for the energy detector)
 *   BENCH_VOICE_TELEMETRY ("1")                      instead of the runs above: the turn latency with tracing and metrics
 *                                                    off and on (issue 25), the overhead run's 5 calls and BENCH_VOICE_TURNS
 *                                                    turns, a new server per run, alternating (off/on, then on/off)
 *                                                    BENCH_VOICE_TELEMETRY_ROUNDS times (default 6), after a warm-up;
 *                                                    written to its section of bench/telemetry-results.md
 */
import { RunId } from "@agentline/api/Ids"
import * as Pcm from "@agentline/core/audio/Pcm"
import { VoiceActivity, type VoiceActivityService } from "@agentline/core/audio/VoiceActivity"
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { acting } from "@agentline/core/organizations/Principal"
import { Organizations } from "@agentline/core/organizations/Organizations"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { Users } from "@agentline/core/users/Users"
import { SpeechToText, TextToSpeech } from "@agentline/core/voice/Speech"
import { Workflows } from "@agentline/core/workflows/Workflows"
import * as Server from "@agentline/http/Server"
import { ServerConfig } from "@agentline/http/ServerConfig"
import { Database } from "@agentline/sql"
import { Twilio } from "@agentline/telephony-twilio"
import * as LocalTextToSpeech from "@agentline/voice-local/LocalTextToSpeech"
import * as ChatLanguageModel from "@agentline/voice-openai/ChatLanguageModel"
import { reply, startFakeOpenAi } from "@agentline/voice-openai/testing/FakeOpenAi"
import * as SileroVoiceActivity from "@agentline/voice-silero/SileroVoiceActivity"
import { AgentLanguageModel, SpeechServiceNames } from "@agentline/voice/session/LanguageModelTools"
import * as ScriptedSpeechToText from "@agentline/voice/testing/ScriptedSpeechToText"
import type { LanguageModel } from "@effect/ai"
import { OpenAiClient } from "@effect/ai-openai"
import { FetchHttpClient, HttpApiBuilder } from "@effect/platform"
import { NodeContext, NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Option, Redacted, Stream } from "effect"
import { execFileSync, fork } from "node:child_process"
import * as NodeFs from "node:fs"
import * as Inspector from "node:inspector/promises"
import { createServer } from "node:http"
import * as Net from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { otlpSink, telemetryOn, writeSection } from "./telemetry.js"
import type { ChildMessage, Message } from "./voice-callers.js"

const TURNS = Number(process.env.BENCH_VOICE_TURNS ?? 200)
const TELEMETRY = process.env.BENCH_VOICE_TELEMETRY === "1"
const TELEMETRY_ROUNDS = Number(process.env.BENCH_VOICE_TELEMETRY_ROUNDS ?? 6)
const CAPACITY = (process.env.BENCH_VOICE_CALLS ?? "5,25,50,100,150,200").split(",").map(Number).filter((n) => n > 0)
const RATE = 8000
const STOP_SECONDS = 0.3
let speechSeconds = 0

/** Published vendor latencies (docs: voice runtime reference, "Latency budget"), used by the voice-to-voice run. */
const VENDOR = { sttFinalMs: 350, llmFirstTokenMs: 420, ttsFirstAudioMs: 75 }
/** The latencies the fakes add now: zero, or the vendors' for the voice-to-voice run. */
const latency = { sttFinalMs: 0, llmFirstTokenMs: 0, ttsFirstAudioMs: 0 }

const tone = (ms: number, amplitude: number) =>
  Int16Array.from({ length: (RATE * ms) / 1000 }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 300 * i) / RATE)))

/** The synthesizer fake: 200 ms of tone per sentence, after `latency.ttsFirstAudioMs`. */
const instantSpeech = Layer.succeed(TextToSpeech, {
  synthesize: (format, sentences) =>
    Stream.mapEffect(sentences, () => {
      const samples = tone(200, 6000)
      const audio = { audio: { format: { encoding: "l16le" as const, sampleRate: format.sampleRate }, data: new Uint8Array(samples.buffer) } }
      return latency.ttsFirstAudioMs > 0 ? Effect.as(Effect.sleep(latency.ttsFirstAudioMs), audio) : Effect.succeed(audio)
    })
} as TextToSpeech["Type"])

/**
 * The recognizer fake: its final comes when its own (energy) detector has heard `latency.sttFinalMs` of
 * silence, or 150 ms in the zero-latency runs — before the runtime's endpointing (300 ms after the
 * VAD's end of speech), so those turns wait on the VAD alone, as the overhead target assumes. (Its energy
 * detector hears the last "t" of the sentence, which Silero rightly does not count as voice, about 100 ms
 * after Silero's end of speech.)
 */
const scriptLines = () => Array.from({ length: 1000 }, () => "Tell me more.")
const recognizerNow = ScriptedSpeechToText.make(scriptLines, { pauseMillis: 150 })
const recognizerAtVendorLatency = ScriptedSpeechToText.make(scriptLines, { pauseMillis: VENDOR.sttFinalMs })
const recognizer = Layer.succeed(SpeechToText, {
  transcribe: (format, audio, options) =>
    (latency.sttFinalMs > 0 ? recognizerAtVendorLatency : recognizerNow).transcribe(format, audio, options)
} as SpeechToText["Type"])

/** The LLM's first token after `latency.llmFirstTokenMs`. */
const slowed = (model: LanguageModel.Service): LanguageModel.Service => ({
  ...model,
  streamText: (options) => Stream.unwrap(Effect.as(Effect.sleep(latency.llmFirstTokenMs), model.streamText(options)))
})

/**
 * What the simulated caller says each turn: real synthesized speech (espeak-ng), since the Silero VAD,
 * rightly, does not take a tone for a voice. Synthesized once at start, sent to the callers as µ-law.
 */
const synthesizeCallerSpeech = Effect.gen(function*() {
  const tts = yield* LocalTextToSpeech.make()
  const frames = yield* Stream.runCollect(tts.synthesize("Tell me more about it.", { encoding: "l16le", sampleRate: RATE }))
  const all = concat(Array.from(frames, (frame) => Pcm.decode(frame).samples))
  // espeak-ng pads its speech with near-silence (about 0.4 s at the end): trimmed, so the caller's last
  // frame is the end of the words, which the overhead is measured from.
  const audible = (sample: number) => Math.abs(sample) > 64
  const first = all.findIndex(audible)
  let last = all.length - 1
  while (last > first && !audible(all[last]!)) last--
  return all.slice(Math.max(0, first), last + 1)
}).pipe(Effect.provide(NodeContext.layer))

function concat(parts: ReadonlyArray<Int16Array>) {
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    all.set(p, at)
    at += p.length
  }
  return all
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const freePort = Effect.async<number>((resume) => {
  const probe = Net.createServer()
  probe.listen(0, "127.0.0.1", () => {
    const port = (probe.address() as Net.AddressInfo).port
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/** The callers' process, forked: what it sends, in order. */
const startCallers = Effect.acquireRelease(
  Effect.sync(() => {
    const child = fork(new URL("./voice-callers.ts", import.meta.url), [], {
      execArgv: process.execArgv.filter((a) => !a.startsWith("--cpu-prof")),
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    const inbox: Array<ChildMessage> = []
    const waiting: Array<(m: ChildMessage) => void> = []
    child.on("message", (m: ChildMessage) => {
      const w = waiting.shift()
      if (w !== undefined) w(m)
      else inbox.push(m)
    })
    return {
      send: (m: Message) => void child.send(m),
      next: () => new Promise<ChildMessage>((r) => (inbox.length > 0 ? r(inbox.shift()!) : waiting.push(r))),
      close: () => void child.send({ type: "close" } satisfies Message)
    }
  }),
  (callers) => Effect.sync(() => callers.close())
)

/** With BENCH_VOICE_PROFILE, the server's CPU profile of one run only (not the start-up's module loading). */
const startProfile = Effect.promise(async () => {
  const dir = process.env.BENCH_VOICE_PROFILE
  if (dir === undefined || dir === "") return (_name: string) => Effect.void
  const session = new Inspector.Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.start")
  return (name: string) =>
    Effect.promise(async () => {
      const { profile } = await session.post("Profiler.stop")
      session.disconnect()
      NodeFs.mkdirSync(dir, { recursive: true })
      NodeFs.writeFileSync(NodePath.join(dir, `${name}.cpuprofile`), JSON.stringify(profile))
    })
})

const loadavg = () => NodeOs.loadavg().map((l) => l.toFixed(2)).join(" / ")

interface Row {
  readonly name: string
  readonly calls: number
  readonly peakConnected: number
  readonly expectedTurns: number
  readonly turns: number
  readonly overheadP50: number
  readonly overheadP99: number
  readonly afterVadP50: number
  readonly afterVadP99: number
  readonly latenessP99: number
  readonly latenessMax: number
  readonly lateFrames: number
  readonly frames: number
  readonly cpuPerCall: number
  readonly cpuMsPerTurn: number
  readonly callerCpuPerCall: number
  readonly rssPerCallMb: number
  readonly windowsPerInference: number
  readonly load: string
  /** Every turn's overhead at the caller and after the VAD (ms), sorted. */
  readonly atCaller: ReadonlyArray<number>
  readonly afterVad: ReadonlyArray<number>
}

interface Scenario {
  readonly name: string
  readonly calls: number
  readonly turns: number
  readonly measureFromSpeechEnd?: boolean
}

const main = Effect.gen(function*() {
  const speech = yield* synthesizeCallerSpeech
  speechSeconds = speech.length / RATE
  const callers = yield* startCallers
  const ready = yield* Effect.promise(callers.next)
  if (ready.type !== "ready") return yield* Effect.dieMessage("the callers did not start")
  const llm = yield* startFakeOpenAi([], () => reply("Okay."))
  const voiceServices = Layer.mergeAll(
    recognizer,
    instantSpeech,
    Layer.effect(AgentLanguageModel, Effect.map(ChatLanguageModel.make({ model: "fake" }), (model) => Option.some({ name: "openai:fake", model: slowed(model) }))).pipe(
      Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make("sk-fake"), apiUrl: llm.url })),
      Layer.provide(FetchHttpClient.layer)
    ),
    Layer.succeed(SpeechServiceNames, { stt: "scripted", tts: "instant" })
  )
  // The server's voice activity detector: Silero unless AGENTLINE_VAD says energy (kept to read its batches).
  const silero = process.env.AGENTLINE_VAD === "energy" ? undefined : yield* SileroVoiceActivity.make()
  const voiceActivity: VoiceActivityService = silero ?? VoiceActivity.defaultValue()
  const twilio = yield* Twilio.make({ apiUrl: ready.twilioUrl }).pipe(Effect.provide(FetchHttpClient.layer))
  const speechMulaw = Buffer.from(Pcm.encode({ sampleRate: RATE, samples: speech }, { encoding: "mulaw", sampleRate: RATE }).data).toString("base64")
  const callerId = "+14155550100"
  callers.send({ type: "own", number: callerId })
  let dialed = 0

  /**
   * A server of its own (a new data directory, database and port) with `telemetry` under it, as
   * `agentline serve` provides its observability under everything; `body` gets the scenario runner.
   */
  const withServer = <A, R>(
    telemetry: Layer.Layer<R>,
    body: (scenario: (s: Scenario) => Effect.Effect<Row>) => Effect.Effect<A>
  ) =>
    Effect.gen(function*() {
      const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-bench-voice-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(dataDir, { recursive: true, force: true })))
      const port = yield* freePort
      const publicUrl = `http://127.0.0.1:${port}`
      const app = HttpApiBuilder.serve().pipe(
        Layer.provideMerge(Server.HttpAppLive),
        Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })),
        Layer.provideMerge(ServerConfig.layer({
          port, host: "127.0.0.1", dataDir, publicUrl, version: "bench",
          secretKey: Redacted.make("bench-secret"), publicLinkTtlSeconds: 3600,
          maxUploadBytes: 1024 * 1024, uploadUrlTtlSeconds: 900, voiceServices,
          voiceActivity: Layer.succeed(VoiceActivity, voiceActivity),
          telephonyProviders: [twilio],
          dispatcherAcquireIntervalMillis: 100,
          dispatcherRecheckMillis: 100
        })),
        Layer.provideMerge(Database.layerSqlite({ filename: NodePath.join(dataDir, "bench.db") }).pipe(Layer.orDie)),
        Layer.provide(telemetry)
      )
      return yield* Effect.gen(function*() {
        const admin = yield* (yield* Users).create({
          email: "bench@voice.local", password: "bench-password", role: "admin", organization: { name: "bench-voice" }, mustChangePassword: false
        })
        const principal = acting(admin)
        yield* (yield* Organizations).setConcurrentCallLimit(principal.organizationId, 10_000)
        const apiKey = (yield* (yield* ApiKeys).create(principal, "bench")).api_key
        const api = (method: string, path: string, body: unknown) =>
          Effect.promise(() =>
            fetch(`${publicUrl}${path}`, { method, headers: { "x-api-key": apiKey, "content-type": "application/json" }, body: JSON.stringify(body) })
              .then(async (r) => ({ status: r.status, body: await r.json() as Record<string, unknown> }))
          )
        const workflow = yield* (yield* Workflows).create(principal, {
          name: "bench",
          workflow_definition: {
            nodes: [
              { id: "s", type: "startCall", position: { x: 0, y: 0 }, data: { name: "s", prompt: "Talk.", greeting: "Hello." } },
              { id: "e", type: "endCall", position: { x: 0, y: 1 }, data: { name: "e", prompt: "Bye." } }
            ],
            edges: [{ id: "x", source: "s", target: "e", data: { label: "end", condition: "done" } }]
          },
          workflow_configurations: { smart_turn_stop_secs: STOP_SECONDS, max_user_idle_timeout: 60 }
        } as Parameters<Workflows["create"]>[1])
        const config = yield* api("POST", "/api/v1/organizations/telephony-configs", {
          name: "twilio",
          config: { provider: "twilio", account_sid: ready.accountSid, auth_token: ready.authToken, amd_enabled: false },
          is_default_outbound: true
        })
        if (config.status !== 200) return yield* Effect.dieMessage(`telephony config: ${JSON.stringify(config.body)}`)
        const number = yield* api("POST", `/api/v1/organizations/telephony-configs/${config.body["id"]}/phone-numbers`, { address: callerId, is_default_caller_id: true })
        if (number.status !== 200) return yield* Effect.dieMessage(`caller id: ${JSON.stringify(number.body)}`)
        const runs = yield* RunsRepo

        const scenario = ({ calls, measureFromSpeechEnd = false, name, turns }: Scenario) =>
          Effect.gen(function*(): Effect.fn.Return<Row> {
            const loadBefore = loadavg()
            const profiler = yield* startProfile
            const cpuBefore = process.cpuUsage()
            const batchesBefore = silero?.batches()
            const started = performance.now()
            let peakRss = 0
            const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100)
            const rssBefore = process.memoryUsage().rss
            callers.send({ type: "run", calls, turns, speech: speechMulaw, measureFromSpeechEnd })
            const ids: Array<number> = []
            for (let i = 0; i < calls; i++) {
              const to = `+1415${String(2000000 + dialed++).padStart(7, "0")}`
              callers.send({ type: "behave", number: to })
              const placed = yield* api("POST", `/api/v1/public/agent/workflow/${workflow.workflow_uuid}`, { phone_number: to })
              if (placed.status !== 200) return yield* Effect.dieMessage(`placing a call: ${JSON.stringify(placed.body)}`)
              ids.push(Number(placed.body["workflow_run_id"]))
            }
            const result = yield* Effect.promise(callers.next)
            if (result.type !== "result") return yield* Effect.dieMessage("the callers did not answer with a result")
            clearInterval(sampler)
            const cpu = process.cpuUsage(cpuBefore)
            const wall = (performance.now() - started) / 1000
            // The runtime's own record of each turn (its session saved a little after the call ends).
            const afterVad: Array<number> = []
            for (const id of ids) {
              let logged: ReadonlyArray<number> | undefined
              for (let tries = 0; tries < 100 && logged === undefined; tries++) {
                const run = yield* runs.findById(RunId.make(id))
                const logs = Option.isSome(run) ? run.value.logs as { readonly turn_latency_ms?: ReadonlyArray<number> } | null : null
                logged = logs?.turn_latency_ms
                if (logged === undefined) yield* Effect.sleep("100 millis")
              }
              for (const ms of logged ?? []) afterVad.push(ms - STOP_SECONDS * 1000)
            }
            afterVad.sort((a, b) => a - b)
            const overheads = [...result.overheads].sort((a, b) => a - b)
            const lateness = [...result.lateness].sort((a, b) => a - b)
            const batches = silero?.batches()
            const windows = batches !== undefined && batchesBefore !== undefined ? batches.windows - batchesBefore.windows : 0
            const inferences = batches !== undefined && batchesBefore !== undefined ? batches.runs - batchesBefore.runs : 0
            const row = {
              name, calls, peakConnected: result.peakConnected, expectedTurns: calls * turns, turns: overheads.length,
              overheadP50: percentile(overheads, 50), overheadP99: percentile(overheads, 99),
              afterVadP50: percentile(afterVad, 50), afterVadP99: percentile(afterVad, 99),
              latenessP99: percentile(lateness, 99), latenessMax: lateness.at(-1) ?? 0,
              lateFrames: lateness.filter((l) => l > 20).length, frames: lateness.length,
              cpuPerCall: ((cpu.user + cpu.system) / 1e6 / wall / calls) * 100,
              cpuMsPerTurn: (cpu.user + cpu.system) / 1000 / Math.max(1, overheads.length),
              callerCpuPerCall: (result.cpuMicros / 1e6 / wall / calls) * 100,
              rssPerCallMb: (peakRss - rssBefore) / 1024 / 1024 / calls,
              windowsPerInference: inferences === 0 ? 0 : windows / inferences,
              load: `${loadBefore} → ${loadavg()}`,
              atCaller: overheads,
              afterVad
            }
            console.log(JSON.stringify({ ...row, atCaller: undefined, afterVad: undefined }))
            yield* profiler(`${name}-${calls}`)
            return row
          })

        return yield* body(scenario)
      }).pipe(Effect.provide(app))
    }).pipe(Effect.scoped, Effect.orDie)

  if (TELEMETRY) return yield* telemetryOverhead(withServer)
  const [overhead, capacity, voiceToVoice] = yield* withServer(Layer.empty, (scenario) =>
    Effect.gen(function*() {
      const overhead = yield* scenario({ name: "overhead", calls: 5, turns: Math.ceil(TURNS / 5) })
      const capacity: Array<Row> = []
      for (const calls of CAPACITY) capacity.push(yield* scenario({ name: "capacity", calls, turns: 3 }))
      Object.assign(latency, VENDOR)
      const voiceToVoice = yield* scenario({ name: "voice to voice", calls: 5, turns: Math.ceil(TURNS / 5), measureFromSpeechEnd: true })
      return [overhead, capacity, voiceToVoice] as const
    }))
  report(overhead, capacity, voiceToVoice, voiceActivity.name)
}).pipe(Effect.scoped)

// ----------------------------------------------------------------------------- telemetry overhead

type WithServer = <A, R>(
  telemetry: Layer.Layer<R>,
  body: (scenario: (s: Scenario) => Effect.Effect<Row>) => Effect.Effect<A>
) => Effect.Effect<A>

interface TelemetryRun {
  readonly round: number
  readonly on: boolean
  readonly row: Row
  readonly load: number
  /** Bytes of OTLP the receiver took in (on), NaN off. */
  readonly exported: number
}

/** Student's t, two-sided 95 %, by degrees of freedom (1.96 past 30). */
const T95 = [NaN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042]

/**
 * The mean of `differences` with its 95 % interval (t over the rounds). A round, not a turn, is the unit:
 * turns of one run share its server, its phase against the callers' clock and the machine's load then,
 * so runs of one setting differ by more than turns within a run do.
 */
const meanInterval = (differences: ReadonlyArray<number>) => {
  const n = differences.length
  const mean = differences.reduce((a, b) => a + b, 0) / n
  const sd = Math.sqrt(differences.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1))
  const half = (T95[n - 1] ?? 1.96) * sd / Math.sqrt(n)
  return { mean, low: mean - half, high: mean + half }
}

/**
 * The same small scenario (the overhead run: 5 calls at once) on a server with tracing and metrics off,
 * then on (every span exported over OTLP/HTTP to a receiver in another process, `/metrics` rendered each
 * second), a new server each run; rounds alternate the order (off/on, on/off) so that a drift of the
 * machine's load falls on both. A short warm-up first (the process's first server runs colder).
 */
const telemetryOverhead = (withServer: WithServer) =>
  Effect.gen(function*() {
    const turns = Math.ceil(TURNS / 5)
    yield* withServer(Layer.empty, (scenario) => scenario({ name: "warm-up", calls: 5, turns: 3 }))
    const runs: Array<TelemetryRun> = []
    for (let round = 1; round <= TELEMETRY_ROUNDS; round++) {
      for (const on of round % 2 === 1 ? [false, true] : [true, false]) {
        const load = NodeOs.loadavg()[0]!
        const scenario: Scenario = { name: `telemetry ${on ? "on" : "off"}`, calls: 5, turns }
        console.error(`[bench] round ${round}, telemetry ${on ? "on" : "off"} (load ${load.toFixed(2)})…`)
        if (on) {
          const port = yield* freePort
          const { row, sink } = yield* Effect.scoped(Effect.gen(function*() {
            const sink = yield* otlpSink(port)
            const row = yield* withServer(telemetryOn(port), (run) => run(scenario))
            return { row, sink }
          }))
          runs.push({ round, on, row, load, exported: sink.bytes() })
        } else {
          runs.push({ round, on, row: yield* withServer(Layer.empty, (run) => run(scenario)), load, exported: NaN })
        }
      }
    }
    telemetryReport(runs, turns)
  })

const telemetryReport = (runs: ReadonlyArray<TelemetryRun>, turns: number) => {
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()
  const cpus = NodeOs.cpus()
  const ms = (n: number) => `${n.toFixed(1)} ms`
  const signed = (n: number) => `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(1)} ms`
  const median = (values: ReadonlyArray<number>) => percentile([...values].sort((a, b) => a - b), 50)
  const range = (values: ReadonlyArray<number>) => `${signed(Math.min(...values))} … ${signed(Math.max(...values))}`
  const spread = (values: ReadonlyArray<number>) => Math.max(...values) - Math.min(...values)
  const pool = (on: boolean, measure: "atCaller" | "afterVad") =>
    runs.filter((r) => r.on === on).flatMap((r) => r.row[measure]).sort((a, b) => a - b)
  const rounds = [...new Set(runs.map((r) => r.round))]
  const pairOf = (round: number) => ({ off: runs.find((r) => r.round === round && !r.on)!.row, on: runs.find((r) => r.round === round && r.on)!.row })
  const stats = [
    { label: "after the VAD, p50", measure: "afterVad", p: 50, of: (r: Row) => r.afterVadP50 },
    { label: "after the VAD, p99", measure: "afterVad", p: 99, of: (r: Row) => r.afterVadP99 },
    { label: "at the caller, p50", measure: "atCaller", p: 50, of: (r: Row) => r.overheadP50 },
    { label: "at the caller, p99", measure: "atCaller", p: 99, of: (r: Row) => r.overheadP99 }
  ] as const
  const summaries = stats.map((stat) => {
    const differences = rounds.map((round) => stat.of(pairOf(round).on) - stat.of(pairOf(round).off))
    const offPool = pool(false, stat.measure)
    const onPool = pool(true, stat.measure)
    const interval = meanInterval(differences)
    // The noise: how far apart runs of the same setting land.
    const noise = Math.max(spread(runs.filter((r) => !r.on).map((r) => stat.of(r.row))), spread(runs.filter((r) => r.on).map((r) => stat.of(r.row))))
    return { ...stat, differences, interval, noise, offPool: percentile(offPool, stat.p), onPool: percentile(onPool, stat.p) }
  })
  const verdict = (s: (typeof summaries)[number]) =>
    s.interval.high < 5
      ? "met"
      : s.interval.low >= 5
      ? "**not met**"
      : `not decided: the interval reaches past 5 ms${s.noise > 5 ? ` (runs of one setting differ by up to ${ms(s.noise)}, more than the target)` : ""}`
  const lines = [
    "## Voice: turn latency",
    "",
    `Produced by \`BENCH_VOICE_TELEMETRY=1 npm run bench:voice\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, commit ${commit},`,
    `${cpus.length} × ${cpus[0]?.model.trim() ?? "cpu"}, Node ${process.version}: the voice bench's overhead run (the server process with the`,
    `HTTP API, dispatcher and voice runtime on SQLite and the Twilio adapter; 5 callers at once in another process, over the`,
    `fake Twilio's media WebSockets; zero-latency speech fakes, Silero VAD, endpointing ${STOP_SECONDS * 1000} ms), ${turns} turns a call, with tracing and`,
    "metrics off and on, a new server per run, rounds alternating the order, after a warm-up run. On: the server's own",
    "`Tracing.layer` (BatchSpanProcessor, OTLP/HTTP) exporting every span to a receiver in a third process on 127.0.0.1",
    "(its bytes received are listed), and the Prometheus text rendered every second. Metrics are recorded in both (Effect",
    "metrics, always on). The machine is shared (2 cores, other helpers' builds and tests): the load average is listed.",
    "",
    "| round | telemetry | turns | after the VAD p50 / p99 | at the caller p50 / p99 | server CPU per call | OTLP received | load (1 min at start; 1/5/15 before → after) |",
    "|---|---|---|---|---|---|---|---|",
    ...runs.map((r) =>
      `| ${r.round} | ${r.on ? "on" : "off"} | ${r.row.turns} of ${r.row.expectedTurns} | ${ms(r.row.afterVadP50)} / ${ms(r.row.afterVadP99)} | ${ms(r.row.overheadP50)} / ${ms(r.row.overheadP99)} | ${r.row.cpuPerCall.toFixed(2)} % | ${Number.isNaN(r.exported) ? "–" : `${(r.exported / 1024).toFixed(0)} KiB`} | ${r.load.toFixed(2)}; ${r.row.load} |`
    ),
    "",
    "- **after the VAD**: the runtime's own `logs.turn_latency_ms` less the endpointing delay (the VAD's end of speech → first agent frame sent).",
    "- **at the caller**: the endpointing delay after the caller's last voiced frame → the first agent frame at the caller (the voice bench's target measure).",
    "",
    "Difference on − off of each round's two runs: its mean over the rounds with a 95 % interval (Student's t; a round, not a",
    "turn, is the unit: a run's turns share its server, its phase against the callers' 20 ms clock and the machine's load at",
    "the time, so whole runs of one setting differ); the percentile over all turns of each setting, for scale:",
    "",
    "| turn latency | difference per round: mean [95 % interval] | median (min … max) | all turns: off → on | largest gap between two runs of one setting | < 5 ms |",
    "|---|---|---|---|---|---|",
    ...summaries.map((s) =>
      `| ${s.label} | ${signed(s.interval.mean)} [${signed(s.interval.low)}, ${signed(s.interval.high)}] | ${signed(median(s.differences))} (${range(s.differences)}) | ${ms(s.offPool)} → ${ms(s.onPool)} | ${ms(s.noise)} | ${verdict(s)} |`
    ),
    "",
    `CPU per call, median: off ${median(runs.filter((r) => !r.on).map((r) => r.row.cpuPerCall)).toFixed(2)} %, on ${median(runs.filter((r) => r.on).map((r) => r.row.cpuPerCall)).toFixed(2)} % of a core.`,
    "",
    "Target < 5 ms of turn latency with tracing and metrics on: met for a percentile when the upper end of its interval is",
    "below 5 ms; not met when the lower end is at or above it; otherwise this run cannot tell.",
    ""
  ]
  writeSection(lines.join("\n"))
  console.log(lines.join("\n"))
}

const report = (overhead: Row, capacity: ReadonlyArray<Row>, voiceToVoice: Row, vadName: string) => {
  const budget = VENDOR.sttFinalMs + VENDOR.llmFirstTokenMs + VENDOR.ttsFirstAudioMs
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()
  const cpus = NodeOs.cpus()
  const ms = (n: number) => `${n.toFixed(1)} ms`
  const met = (ok: boolean) => (ok ? "met" : "**not met**")
  const row = (r: Row) =>
    `| ${r.name} | ${r.calls} (${r.peakConnected}) | ${r.turns} of ${r.expectedTurns} | ${ms(r.afterVadP50)} / ${ms(r.afterVadP99)} | ${ms(r.overheadP50)} / ${ms(r.overheadP99)} | ${ms(r.latenessP99)} / ${ms(r.latenessMax)} | ${r.lateFrames} of ${r.frames} | ${r.cpuPerCall.toFixed(2)} % (+ ${r.callerCpuPerCall.toFixed(2)} %) | ${r.cpuMsPerTurn.toFixed(1)} ms | ${r.rssPerCallMb.toFixed(2)} MB | ${r.windowsPerInference.toFixed(1)} | ${r.load} |`
  const at = (calls: number) => capacity.find((r) => r.calls === calls)
  const knee = capacity.filter((r) => r.overheadP99 < 100 && r.turns === r.expectedTurns).reduce((best, r) => Math.max(best, r.calls), 0)
  const hundred = at(100)
  const twoHundred = at(200)
  const lines = [
    "# Voice runtime benchmark",
    "",
    `Run ${new Date().toISOString()} on commit ${commit}, ${cpus.length} × ${cpus[0]?.model.trim() ?? "cpu"}, Node ${process.version}. Produced by \`npm run bench:voice\`.`,
    `The server (HTTP API, dispatcher, the real voice runtime on SQLite, the Twilio adapter) in one process; the callers in another: the fake Twilio, on whose REST API the calls are placed and whose callees talk over its media WebSocket, saying an espeak-ng sentence (${(speechSeconds).toFixed(2)} s) in 20 ms µ-law frames in real time. Zero-latency fakes (scripted recognizer, instant 200 ms synthesizer, fake OpenAI-compatible server on 127.0.0.1); endpointing ${STOP_SECONDS} s; voice activity detector: ${vadName} (\`AGENTLINE_VAD\`).`,
    `**Machine load** (1/5/15-minute load average, before → after each run) is in the last column: numbers taken while other work ran on the machine are not the runtime's alone.`,
    "",
    "| run | calls (peak connected at once) | turns answered | turn overhead after the VAD, p50 / p99 | turn overhead at the caller, p50 / p99 | frame lateness p99 / max | frames late > 20 ms | CPU per call: server (+ callers' process) | server CPU per turn | server RSS per call | VAD windows per inference | load average |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    row(overhead),
    ...capacity.map(row),
    row(voiceToVoice),
    "",
    "- **turns answered**: caller turns the agent began answering within 10 s (the caller then speaks again regardless).",
    `- **turn overhead after the VAD**: the caller's end of speech as the VAD saw it, plus the endpointing delay → the first agent frame sent, from the runtime's own \`logs.turn_latency_ms\` less ${STOP_SECONDS * 1000} ms. In the voice-to-voice row it includes the recognizer's and the LLM's added latency.`,
    "- **turn overhead at the caller** (the targets' measure): the endpointing delay after the caller's last voiced frame, on the callers' wall clock → the first agent frame arriving over the media WebSocket: also counts the socket both ways, how late frames reach the VAD on a loaded event loop and how long the VAD takes to see the speech end (a Silero window is 32 ms). In the voice-to-voice row it is measured from the caller's last voiced frame itself.",
    `- **voice to voice**: the fakes slowed to published vendor latencies: recognizer final ${VENDOR.sttFinalMs} ms after the speech ends (Deepgram P99), LLM first token ${VENDOR.llmFirstTokenMs} ms, synthesizer first audio ${VENDOR.ttsFirstAudioMs} ms (ElevenLabs Flash); sum ${budget} ms. The endpointing (${STOP_SECONDS * 1000} ms) runs alongside the recognizer and is hidden by it.`,
    "- **frame lateness**: how far behind real time an agent frame arrived at the caller, against the utterance's first frame (the runtime's 60 ms lead absorbs up to 60 ms).",
    "- **CPU per call**: the server process's CPU time over the run's wall time, per call (100 % is one core); the callers' process (the fake Twilio and the callers' JSON/base64 frames) in parentheses, on the same 2 cores.",
    "- **server CPU per turn**: the server process's CPU time over the run, per caller turn answered (a turn: the caller's sentence, the pause, the agent's answer): unlike the share of a core, it does not fall when other work on the machine slows the run down.",
    "",
    "## Targets",
    "",
    `- 5 calls, turn overhead p99 < 30 ms: ${ms(overhead.overheadP99)} at the caller (${ms(overhead.afterVadP99)} after the VAD), ${met(overhead.overheadP99 < 30)}`,
    hundred === undefined
      ? "- 100 calls: not run (BENCH_VOICE_CALLS)"
      : `- 100 calls, p99 < 100 ms and no agent frame late by more than 20 ms: p99 ${ms(hundred.overheadP99)}, ${hundred.lateFrames} frames late (max ${ms(hundred.latenessMax)}), ${hundred.turns} of ${hundred.expectedTurns} turns answered, ${met(hundred.overheadP99 < 100 && hundred.lateFrames === 0 && hundred.turns === hundred.expectedTurns)}`,
    twoHundred === undefined
      ? "- 200 calls: not run (BENCH_VOICE_CALLS)"
      : `- 200 calls, every turn answered, p99 < 300 ms: ${twoHundred.turns} of ${twoHundred.expectedTurns} answered, p99 ${ms(twoHundred.overheadP99)}, ${met(twoHundred.turns === twoHundred.expectedTurns && twoHundred.overheadP99 < 300)}`,
    `- the knee (the most calls run with every turn answered and p99 < 100 ms, among ${capacity.map((r) => r.calls).join(", ")}): ${knee === 0 ? "none" : `${knee} calls`}`,
    `- CPU and RSS per call: at ${capacity.at(-1)?.calls ?? 0} calls ${capacity.at(-1)?.cpuPerCall.toFixed(2) ?? "?"} % of a core and ${capacity.at(-1)?.rssPerCallMb.toFixed(2) ?? "?"} MB (the table has every run)`,
    `- voice to voice within 50 ms of the vendors' sum (${budget} ms), p99: ${ms(voiceToVoice.overheadP99)} (p50 ${ms(voiceToVoice.overheadP50)}), ${met(voiceToVoice.overheadP99 <= budget + 50)}`,
    ""
  ]
  NodeFs.writeFileSync(new URL(process.env.BENCH_VOICE_OUT ?? "./voice-results.md", import.meta.url), lines.join("\n"))
  console.log(lines.join("\n"))
}

Effect.runPromise(main).then(() => process.exit(0), (e) => {
  console.error(e)
  process.exit(1)
})
