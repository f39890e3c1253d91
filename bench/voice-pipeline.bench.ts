/**
 * `npm run bench:voice-pipeline`: the voice runtime's own cost per call, without the server around it.
 * Many conversations run in this one process on in-memory calls (`runSession`, the same pipeline a phone
 * call runs): a driver sends every call's caller audio in real time (one 20 ms frame per call every
 * 20 ms: a second of speech-like tone, then two of silence, phases spread over the calls); the scripted
 * recognizer hears the turns, the fake language model answers "Okay.", the fake synthesizer speaks it;
 * the energy voice detector (no native code, so the runtime's own work is what is measured).
 *
 * Reported per number of calls: CPU time per caller frame (the process's CPU over the measured window
 * divided by the caller frames sent: the agent's answers, the VAD, the recognizer and the timers are all
 * in it), the event loop's delay p99 (how late a 20 ms timer fires), and the turn overhead the runtime
 * logs (end of speech + endpointing → first agent frame, less the endpointing). A benchmark, not a test:
 * the machine's load average is written with the results (`bench/voice-pipeline-results.md`).
 *
 *   BENCH_PIPELINE_CALLS (default 50,100,200)   the runs
 *   BENCH_PIPELINE_SECONDS (default 15)         measured seconds per run (after 3 s of warm-up)
 *   BENCH_PIPELINE_OUT (default ./voice-pipeline-results.md)
 */
import { AttemptId, RunId } from "@agentline/api/Ids"
import type { CallAudio, CallAudioEvent } from "@agentline/core/audio/CallAudio"
import type * as Pcm from "@agentline/core/audio/Pcm"
import { energy } from "@agentline/core/audio/VoiceActivity"
import { validateDefinition } from "@agentline/core/workflows/DefinitionValidation"
import { conversationGraph } from "@agentline/voice/graph/ConversationGraph"
import { runSession, type SessionResult, type SessionServices } from "@agentline/voice/pipeline/Session"
import { sessionSettings } from "@agentline/voice/session/SessionSettings"
import * as FakeLanguageModel from "@agentline/voice/testing/FakeLanguageModel"
import * as FakeSpeech from "@agentline/voice/testing/FakeSpeech"
import * as ScriptedSpeechToText from "@agentline/voice/testing/ScriptedSpeechToText"
import { Effect, Either, Fiber, Option, Queue, Sink, Stream } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import { monitorEventLoopDelay } from "node:perf_hooks"

const RATE = 8000
const FRAME = RATE / 50
const CALLS = (process.env.BENCH_PIPELINE_CALLS ?? "50,100,200").split(",").map(Number).filter((n) => n > 0)
const SECONDS = Number(process.env.BENCH_PIPELINE_SECONDS ?? 15)
const WARMUP_SECONDS = 3
const STOP_SECONDS = 0.3

const graph = (() => {
  const { definition, errors } = validateDefinition({
    nodes: [
      { id: "s", type: "startCall", position: { x: 0, y: 0 }, data: { name: "s", prompt: "Talk.", greeting: "Hello." } },
      { id: "e", type: "endCall", position: { x: 0, y: 1 }, data: { name: "e", prompt: "Bye." } }
    ],
    edges: [{ id: "x", source: "s", target: "e", data: { label: "end", condition: "done" } }]
  })
  if (errors.length > 0) throw new Error(JSON.stringify(errors))
  return Either.getOrThrow(conversationGraph(definition))
})()

/** One call's caller: a second of tone, two of silence, from `phase` frames in. */
const speech = FakeSpeech.tone(RATE, 1000)
const silence = new Int16Array(FRAME)
const callerFrame = (n: number): Int16Array => {
  const cycle = n % 150
  return cycle < 50 ? speech.subarray(cycle * FRAME, (cycle + 1) * FRAME) : silence
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

interface Row {
  readonly calls: number
  readonly cpuMicrosPerFrame: number
  readonly loopDelayP99Ms: number
  readonly overheadP50: number
  readonly overheadP99: number
  readonly turns: number
  readonly agentFrames: number
  readonly load: string
}

const loadavg = () => NodeOs.loadavg().map((l) => l.toFixed(2)).join(" / ")

const run = (calls: number) =>
  Effect.gen(function*() {
    const loadBefore = loadavg()
    let agentFrames = 0
    const queues: Array<Queue.Queue<CallAudioEvent | undefined>> = []
    const sessions: Array<Fiber.RuntimeFiber<SessionResult>> = []
    const llm = yield* FakeLanguageModel.make(() => ({ text: "Okay." }))
    const tts = FakeSpeech.synthesizer({ msPerChar: 40 })
    for (let i = 0; i < calls; i++) {
      const incoming = yield* Queue.unbounded<CallAudioEvent | undefined>()
      queues.push(incoming)
      const play = (_: Pcm.PcmFrame) => Effect.sync(() => void agentFrames++)
      const end = Queue.offer(incoming, undefined)
      const audio: CallAudio = {
        provider: "memory",
        attemptId: AttemptId.make(i + 1),
        runId: RunId.make(i + 1),
        providerCallId: `call-${i}`,
        streamId: `stream-${i}`,
        sampleRate: RATE,
        parameters: {},
        incoming: Stream.fromQueue(incoming).pipe(Stream.takeWhile((e): e is CallAudioEvent => e !== undefined)),
        play,
        outgoing: Sink.forEach(play),
        mark: () => Effect.void,
        clear: Effect.void,
        hangUp: end,
        endAsVoicemail: () => end,
        endAsFailed: () => end
      }
      const services: SessionServices = {
        stt: ScriptedSpeechToText.make(() => Array.from({ length: 1000 }, () => "Tell me more."), { pauseMillis: 150 }),
        tts: tts.service,
        model: Option.some({ name: "fake", model: llm.model }),
        detector: yield* energy().detector(RATE),
        playable: (id) => Effect.succeed(Either.left(`no recording ${id}`)),
        optOut: Option.none()
      }
      const settings = sessionSettings({ smart_turn_stop_secs: STOP_SECONDS, max_user_idle_timeout: 60 })
      sessions.push(yield* Effect.fork(Effect.scoped(runSession(audio, { run: { id: i + 1, organization_id: 1 }, initialContext: {}, graph, settings }, services))))
    }
    // The callers: every call's next frame every 20 ms, on the wall clock (a late tick sends what is due).
    const phases = Array.from({ length: calls }, (_, i) => Math.floor((i * 150) / calls))
    let sent = 0
    let measuredFrames = 0
    const t0 = performance.now()
    const driver = setInterval(() => {
      const due = Math.floor((performance.now() - t0) / 20)
      for (; sent < due; sent++) {
        for (let i = 0; i < calls; i++) {
          queues[i]!.unsafeOffer({ _tag: "Audio", frame: { sampleRate: RATE, samples: callerFrame(sent + phases[i]!) } })
        }
        measuredFrames += calls
      }
    }, 20)
    yield* Effect.sleep(WARMUP_SECONDS * 1000)
    const delay = monitorEventLoopDelay({ resolution: 5 })
    delay.enable()
    const framesBefore = measuredFrames
    const cpuBefore = process.cpuUsage()
    yield* Effect.sleep(SECONDS * 1000)
    const cpu = process.cpuUsage(cpuBefore)
    const frames = measuredFrames - framesBefore
    delay.disable()
    clearInterval(driver)
    for (const q of queues) q.unsafeOffer(undefined)
    const results = yield* Fiber.joinAll(sessions)
    const overheads = results.flatMap((r) => r.latencies.map((ms) => ms - STOP_SECONDS * 1000)).sort((a, b) => a - b)
    const row: Row = {
      calls,
      cpuMicrosPerFrame: (cpu.user + cpu.system) / frames,
      loopDelayP99Ms: delay.percentile(99) / 1e6,
      overheadP50: percentile(overheads, 50),
      overheadP99: percentile(overheads, 99),
      turns: overheads.length,
      agentFrames,
      load: `${loadBefore} → ${loadavg()}`
    }
    console.log(JSON.stringify(row))
    return row
  })

const main = Effect.gen(function*() {
  const rows: Array<Row> = []
  for (const calls of CALLS) rows.push(yield* Effect.scoped(run(calls)))
  const ms = (n: number) => `${n.toFixed(1)} ms`
  const lines = [
    "# Voice pipeline benchmark (in memory)",
    "",
    `Run ${new Date().toISOString()}, ${NodeOs.cpus().length} × ${NodeOs.cpus()[0]?.model ?? "?"}, Node ${process.version}. Produced by \`npm run bench:voice-pipeline\`: ` +
    `the voice runtime's sessions on in-memory calls in one process (no server, no sockets), callers sending 20 ms frames in real time ` +
    `(1 s of tone, 2 s of silence), the scripted recognizer, the fake language model, the fake synthesizer, the energy voice detector; ${SECONDS} s measured per run.`,
    "",
    "| calls | CPU per caller frame | event loop delay p99 | turn overhead p50 / p99 | turns | agent frames | load average |",
    "|---|---|---|---|---|---|---|",
    ...rows.map((r) =>
      `| ${r.calls} | ${r.cpuMicrosPerFrame.toFixed(1)} µs | ${ms(r.loopDelayP99Ms)} | ${ms(r.overheadP50)} / ${ms(r.overheadP99)} | ${r.turns} | ${r.agentFrames} | ${r.load} |`
    ),
    "",
    "- **CPU per caller frame**: the process's CPU time over the measured window divided by the caller frames sent in it; everything the runtime does for a call (listening, the VAD, the recognizer, the answers, the timers) is in it. 1,000 µs a frame would be one core for 20 calls.",
    "- **event loop delay p99**: how late the loop ran timers (`monitorEventLoopDelay`): what a frame to be sent waits on top of its slot.",
    "- **turn overhead**: what the runtime logs for each turn (`turn_latency_ms`) less the endpointing (0.3 s)."
  ]
  NodeFs.writeFileSync(new URL(process.env.BENCH_PIPELINE_OUT ?? "./voice-pipeline-results.md", import.meta.url), lines.join("\n") + "\n")
})

Effect.runPromise(main).catch((e) => {
  console.error(e)
  process.exit(1)
})
