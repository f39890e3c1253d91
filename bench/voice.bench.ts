/**
 * `npm run bench:voice`: the voice runtime's own overhead and how many conversations one process holds,
 * written to bench/voice-results.md. A benchmark, not a test: numbers depend on the machine.
 *
 * The real `VoiceAgent` (the server's services on SQLite) talks to callers simulated in this process:
 * each caller streams 20 ms frames in real time, as a phone line does (speech, then silence), and
 * waits for the agent's answer before speaking again. The services are zero-latency fakes: the
 * scripted recognizer fake, a synthesizer that returns 200 ms of tone per sentence at once, and the
 * fake OpenAI-compatible server on 127.0.0.1 answering "Okay." (so an LLM turn includes a local HTTP
 * round trip and SSE parsing).
 *
 * - **Turn overhead**: the moment the endpointing delay has passed after the caller's last voiced frame
 *   (when the VAD can decide) → the first agent frame handed to the provider.
 * - **Frame lateness**: for each agent utterance, frame n handed over at s_n is late by
 *   s_n − (s_0 + 20 ms × n) when positive (the provider would have run dry).
 * - **Voice to voice**: the same, with the fakes slowed to published vendor latencies (a recognizer
 *   whose final comes 350 ms after the speech ends, Deepgram's P99; an LLM whose first token comes after
 *   420 ms; a synthesizer whose first audio comes after 75 ms, ElevenLabs Flash): the caller's last
 *   voiced frame → the first agent frame, against the sum of those latencies.
 *
 * The simulated callers run in this process too (a fiber and a timer per frame), so their cost is in
 * the CPU figures and in the event-loop delay every measurement suffers.
 *
 *   BENCH_VOICE_TURNS (default 200)   turns of the overhead run (5 calls at once)
 *   BENCH_VOICE_CALLS (default 100)   calls of the concurrency run (3 turns each)
 */
import { type AttemptId, OrganizationId, type RunId, WorkflowId } from "@agentline/api/Ids"
import type { CallAudio, CallAudioEvent } from "@agentline/core/audio/CallAudio"
import type { PcmFrame } from "@agentline/core/audio/Pcm"
import { acting } from "@agentline/core/organizations/Principal"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { Users } from "@agentline/core/users/Users"
import { SpeechToText, TextToSpeech } from "@agentline/core/voice/Speech"
import { Workflows } from "@agentline/core/workflows/Workflows"
import * as Server from "@agentline/http/Server"
import * as VoiceServices from "@agentline/http/voice/VoiceServices"
import { VoiceActivity } from "@agentline/core/audio/VoiceActivity"
import { ServerConfig } from "@agentline/http/ServerConfig"
import { Database } from "@agentline/sql"
import { AgentLanguageModel, SpeechServiceNames } from "@agentline/voice/session/LanguageModelTools"
import { VoiceAgent } from "@agentline/voice/session/VoiceAgent"
import * as ScriptedSpeechToText from "@agentline/voice/testing/ScriptedSpeechToText"
import * as ChatLanguageModel from "@agentline/voice-openai/ChatLanguageModel"
import { reply, startFakeOpenAi } from "@agentline/voice-openai/testing/FakeOpenAi"
import type { LanguageModel } from "@effect/ai"
import { OpenAiClient } from "@effect/ai-openai"
import { FetchHttpClient } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import * as LocalTextToSpeech from "@agentline/voice-local/LocalTextToSpeech"
import { Effect, Fiber, Layer, Option, Queue, Redacted, Stream } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { execFileSync } from "node:child_process"

const TURNS = Number(process.env.BENCH_VOICE_TURNS ?? 200)
const CALLS = Number(process.env.BENCH_VOICE_CALLS ?? 100)
const RATE = 8000
const FRAME = RATE / 50
const STOP_SECONDS = 0.3

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
  streamText: ((options: any) =>
    Stream.unwrap(Effect.as(Effect.sleep(latency.llmFirstTokenMs), model.streamText(options)))) as LanguageModel.Service["streamText"]
})

/**
 * What the simulated caller says each turn: real synthesized speech (espeak-ng), since the Silero VAD,
 * rightly, does not take a tone for a voice. Synthesized once at start.
 */
const callerSpeech = { samples: new Int16Array(0) }
const synthesizeCallerSpeech = Effect.gen(function*() {
  const tts = yield* LocalTextToSpeech.make()
  const frames = yield* Stream.runCollect(tts.synthesize("Tell me more about it.", { encoding: "l16le", sampleRate: RATE }))
  const parts = Array.from(frames, (frame) => new Int16Array(frame.data.buffer.slice(frame.data.byteOffset, frame.data.byteOffset + frame.data.byteLength)))
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    all.set(part, at)
    at += part.length
  }
  // espeak-ng pads its speech with near-silence (about 0.4 s at the end): trimmed, so the caller's last
  // frame is the end of the words, which the overhead is measured from.
  const audible = (sample: number) => Math.abs(sample) > 64
  const first = all.findIndex(audible)
  let last = all.length - 1
  while (last > first && !audible(all[last]!)) last--
  callerSpeech.samples = all.slice(Math.max(0, first), last + 1)
}).pipe(Effect.provide(NodeContext.layer))

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

interface CallStats {
  readonly overheads: Array<number>
  readonly lateness: Array<number>
}

/** One simulated caller on one run: `turns` exchanges, frames paced on the wall clock. */
const converse = (agent: VoiceAgent, runId: number, turns: number, stats: CallStats, measureFromSpeechEnd: boolean) =>
  Effect.gen(function*() {
    const incoming = yield* Queue.unbounded<CallAudioEvent>()
    let utteranceStart: number | undefined
    let framesInUtterance = 0
    let lastPlay = 0
    let decisionAt: number | undefined
    /** This call's answered turns (the stats are shared by every call of the run). */
    let answered = 0
    const audio: CallAudio = {
      provider: "bench",
      attemptId: 0 as AttemptId,
      runId: runId as RunId,
      providerCallId: undefined,
      streamId: `bench-${runId}`,
      sampleRate: RATE,
      parameters: {},
      incoming: Stream.fromQueue(incoming).pipe(Stream.takeWhile((e) => e._tag !== "Dtmf" || e.digit !== "#")),
      play: (frame: PcmFrame) =>
        Effect.sync(() => {
          const now = performance.now()
          if (utteranceStart === undefined || now - lastPlay > 250) {
            utteranceStart = now
            framesInUtterance = 0
            if (decisionAt !== undefined) {
              stats.overheads.push(now - decisionAt)
              answered++
            }
            decisionAt = undefined
          }
          stats.lateness.push(Math.max(0, now - (utteranceStart + framesInUtterance * 20)))
          framesInUtterance++
          lastPlay = now
        }),
      outgoing: undefined as never,
      mark: () => Effect.void,
      clear: Effect.void,
      hangUp: Queue.offer(incoming, { _tag: "Dtmf", digit: "#" }).pipe(Effect.asVoid),
      endAsVoicemail: () => Queue.offer(incoming, { _tag: "Dtmf", digit: "#" }).pipe(Effect.asVoid)
    }
    const handled = yield* Effect.fork(agent.handle(audio))
    const speech = callerSpeech.samples
    const silence = new Int16Array(FRAME)
    const wait = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))
    /** Streams frames in real time (20 ms apart, on the wall clock, without drift). */
    const stream = (samples: Int16Array, onLast?: () => void) =>
      Effect.gen(function*() {
        const start = performance.now()
        let n = 0
        for (let i = 0; i < samples.length; i += FRAME, n++) {
          const ahead = start + n * 20 - performance.now()
          if (ahead > 1) yield* wait(ahead)
          yield* Queue.offer(incoming, { _tag: "Audio", frame: { sampleRate: RATE, samples: samples.subarray(i, i + FRAME) } })
        }
        // The last frame lasts its 20 ms too: the line never sends faster than real time.
        const rest = start + n * 20 - performance.now()
        if (rest > 1) yield* wait(rest)
        onLast?.()
      })
    // The greeting first, then the turns; silence flows whenever the caller is quiet.
    for (let turn = 0; turn < turns; turn++) {
      while (performance.now() - lastPlay < 300 || lastPlay === 0) {
      yield* stream(silence)
    }
      yield* stream(speech)
      const spokeEnd = performance.now()
      decisionAt = spokeEnd + (measureFromSpeechEnd ? 0 : STOP_SECONDS * 1000)
      const before = answered
      while (answered === before && performance.now() - spokeEnd < 10_000) yield* stream(silence)
    }
    yield* Queue.offer(incoming, { _tag: "Dtmf", digit: "#" })
    yield* Fiber.await(handled)
  })

const main = Effect.gen(function*() {
  yield* synthesizeCallerSpeech
  const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-bench-voice-"))
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
  // The server's voice activity detector (AGENTLINE_VAD: Silero unless told otherwise).
  const app = VoiceAgent.Default.pipe(
    Layer.provide(voiceServices),
    Layer.provideMerge(Layer.orDie(VoiceServices.voiceActivityLayerConfig)),
    Layer.provideMerge(Server.ServicesLive),
    Layer.provide(Server.MigrationsLive),
    Layer.provideMerge(Database.layerSqlite({ filename: NodePath.join(dataDir, "bench.db") }).pipe(Layer.orDie)),
    Layer.provideMerge(ServerConfig.layer({
      port: 0, host: "127.0.0.1", dataDir, publicUrl: "http://127.0.0.1", version: "bench",
      secretKey: Redacted.make("bench-secret"), publicLinkTtlSeconds: 3600,
      maxUploadBytes: 1024 * 1024, uploadUrlTtlSeconds: 900, voiceServices
    }))
  )
  return yield* Effect.gen(function*() {
    const admin = yield* (yield* Users).create({
      email: "bench@voice.local", password: "bench-password", role: "admin", organization: { name: "bench-voice" }, mustChangePassword: false
    })
    const principal = acting(admin)
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
    } as any)
    const runs = yield* RunsRepo
    const agent = yield* VoiceAgent
    const vadName = (yield* VoiceActivity).name
    const newRun = Effect.map(runs.insert({
      organization_id: OrganizationId.make(principal.organizationId), workflow_id: WorkflowId.make(workflow.id), campaign_id: null,
      definition_id: workflow.current_definition_id, name: "bench", mode: "bench", call_type: "outbound",
      initial_context: {}, gathered_context: null, logs: null, now: new Date().toISOString()
    }), (run) => run.id)

    const scenario = (calls: number, turnsEach: number, measureFromSpeechEnd = false) =>
      Effect.gen(function*() {
        const stats: CallStats = { overheads: [], lateness: [] }
        const cpuBefore = process.cpuUsage()
        const started = performance.now()
        let peakRss = 0
        const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100)
        const rssBefore = process.memoryUsage().rss
        const ids = yield* Effect.all(Array.from({ length: calls }, () => newRun))
        yield* Effect.all(ids.map((id) => converse(agent, id, turnsEach, stats, measureFromSpeechEnd)), { concurrency: "unbounded" })
        clearInterval(sampler)
        // The runtime's own record of each turn: the VAD's end of speech → the first agent frame sent
        // (logs.turn_latency_ms), less the endpointing delay: the overhead as the VAD sees it.
        const afterVad: Array<number> = []
        for (const id of ids) {
          const run = yield* runs.findById(id)
          const logged = Option.isSome(run) ? ((run.value.logs as any)?.turn_latency_ms as ReadonlyArray<number> | undefined) ?? [] : []
          for (const ms of logged) afterVad.push(ms - STOP_SECONDS * 1000)
        }
        afterVad.sort((a, b) => a - b)
        const cpu = process.cpuUsage(cpuBefore)
        const wall = (performance.now() - started) / 1000
        const overheads = [...stats.overheads].sort((a, b) => a - b)
        const lateness = [...stats.lateness].sort((a, b) => a - b)
        return {
          calls,
          expectedTurns: calls * turnsEach,
          turns: overheads.length,
          overheadP50: percentile(overheads, 50),
          overheadP99: percentile(overheads, 99),
          afterVadP50: percentile(afterVad, 50),
          afterVadP99: percentile(afterVad, 99),
          latenessP99: percentile(lateness, 99),
          latenessMax: lateness.at(-1) ?? 0,
          lateFrames: lateness.filter((l) => l > 20).length,
          frames: lateness.length,
          cpuPerCall: ((cpu.user + cpu.system) / 1e6 / wall / calls) * 100,
          rssPerCallMb: (peakRss - rssBefore) / 1024 / 1024 / calls
        }
      })

    const overhead = yield* scenario(5, Math.ceil(TURNS / 5))
    const concurrency = yield* scenario(CALLS, 3)
    Object.assign(latency, VENDOR)
    const voiceToVoice = yield* scenario(5, Math.ceil(TURNS / 5), true)
    const budget = VENDOR.sttFinalMs + VENDOR.llmFirstTokenMs + VENDOR.ttsFirstAudioMs
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()
    const cpus = NodeOs.cpus()
    const ms = (n: number) => `${n.toFixed(1)} ms`
    const row = (name: string, r: typeof overhead) =>
      `| ${name} | ${r.calls} | ${r.turns} of ${r.expectedTurns} | ${ms(r.afterVadP50)} / ${ms(r.afterVadP99)} | ${ms(r.overheadP50)} / ${ms(r.overheadP99)} | ${ms(r.latenessP99)} / ${ms(r.latenessMax)} | ${r.lateFrames} of ${r.frames} | ${r.cpuPerCall.toFixed(2)} % | ${r.rssPerCallMb.toFixed(2)} MB |`
    const lines = [
      "# Voice runtime benchmark",
      "",
      `Run ${new Date().toISOString()} on commit ${commit}, ${cpus.length} × ${cpus[0]?.model.trim() ?? "cpu"}, Node ${process.version}. Produced by \`npm run bench:voice\`.`,
      `The real VoiceAgent on SQLite; callers say an espeak-ng sentence (${(callerSpeech.samples.length / RATE).toFixed(2)} s) in 20 ms frames in real time; zero-latency fakes (scripted recognizer, instant 200 ms synthesizer, fake OpenAI-compatible server on 127.0.0.1); endpointing ${STOP_SECONDS} s; voice activity detector: ${vadName} (\`AGENTLINE_VAD\`).`,
      "",
      "| run | calls at once | turns answered | turn overhead after the VAD, p50 / p99 | turn overhead on the caller's clock, p50 / p99 | frame lateness p99 / max | frames late > 20 ms | CPU per call | RSS per call |",
      "|---|---|---|---|---|---|---|---|---|",
      row("overhead", overhead),
      row("concurrency", concurrency),
      row("voice to voice", voiceToVoice),
      "",
      "- **turns answered**: caller turns the agent began answering within 10 s (the caller then speaks again regardless).",
      `- **turn overhead after the VAD** (the target's definition): the caller's end of speech as the VAD saw it, plus the endpointing delay → the first agent frame sent (LLM request over local HTTP, synthesis, pacing), from the runtime's own \`logs.turn_latency_ms\` less ${STOP_SECONDS * 1000} ms. In the voice-to-voice row it includes the recognizer's and the LLM's added latency.`,
      "- **turn overhead on the caller's clock**: the endpointing delay after the simulated caller's last voiced frame, on the wall clock → the first agent frame handed to the provider: also counts how late frames reach the VAD on a loaded event loop and how long the VAD takes to see the speech end (a Silero window is 32 ms; its network also lets speech fade over a window or two). In the voice-to-voice row it is measured from the caller's last voiced frame itself.",
      `- **voice to voice**: the fakes slowed to published vendor latencies: recognizer final ${VENDOR.sttFinalMs} ms after the speech ends (Deepgram P99), LLM first token ${VENDOR.llmFirstTokenMs} ms, synthesizer first audio ${VENDOR.ttsFirstAudioMs} ms (ElevenLabs Flash); sum ${budget} ms. The endpointing (${STOP_SECONDS * 1000} ms) runs alongside the recognizer and is hidden by it.`,
      "- **frame lateness**: how far behind real time an agent frame was handed over (the 60 ms lead absorbs up to 60 ms).",
      "- The simulated callers run in the same process (a timer per 20 ms frame each): their CPU is counted, and a loaded event loop delays the VAD's decision, which shows as turn overhead.",
      "",
      "## Targets",
      "",
      `- turn overhead p99 < 30 ms beyond the endpointing delay, from the caller's end of speech as the VAD sees it: ${ms(overhead.afterVadP99)}, ${overhead.afterVadP99 < 30 ? "met" : "**not met**"} (on the caller's wall clock, including the VAD's own lag: ${ms(overhead.overheadP99)})`,
      `- ${CALLS} conversations at once, every turn answered (within 10 s) and no frame late by more than 20 ms: ${concurrency.turns} of ${concurrency.expectedTurns} answered, ${concurrency.lateFrames} late, ${concurrency.lateFrames === 0 && concurrency.turns === concurrency.expectedTurns ? "met" : "**not met**"}`,
      `- voice to voice within 50 ms of the vendors' sum (${budget} ms), p99: ${ms(voiceToVoice.overheadP99)} (p50 ${ms(voiceToVoice.overheadP50)}), ${voiceToVoice.overheadP99 <= budget + 50 ? "met" : "**not met**"}`,
      ""
    ]
    NodeFs.writeFileSync(new URL("./voice-results.md", import.meta.url), lines.join("\n"))
    console.log(lines.join("\n"))
  }).pipe(Effect.provide(app))
}).pipe(Effect.scoped)

Effect.runPromise(main).then(() => process.exit(0), (e) => {
  console.error(e)
  process.exit(1)
})
