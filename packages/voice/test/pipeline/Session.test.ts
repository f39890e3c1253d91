/**
 * The whole pipeline of one call on in-memory ports, no server: a call in memory, the scripted
 * recognizer, a fake language model, a fake synthesizer, the energy voice detector.
 */
import { energy } from "@agentline/core/audio/VoiceActivity"
import type { NodeTools, OfferedTool } from "@agentline/core/tools/ToolCalls"
import { SpeechError, type SpeechToTextService } from "@agentline/core/voice/Speech"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Metric, Option, Stream } from "effect"
import { runSession, type SessionServices } from "../../src/pipeline/Session.js"
import { sessionSettings } from "../../src/session/SessionSettings.js"
import * as FakeLanguageModel from "../../src/testing/FakeLanguageModel.js"
import { messageText } from "../../src/testing/FakeLanguageModel.js"
import * as FakeSpeech from "../../src/testing/FakeSpeech.js"
import * as MemoryCallAudio from "../../src/testing/MemoryCallAudio.js"
import * as ScriptedSpeechToText from "../../src/testing/ScriptedSpeechToText.js"
import { framesSent, turnLatency } from "../../src/TurnTelemetry.js"
import { graphOf, node } from "../graph/fixtures.js"

const RATE = 8000

const agent = (start: Record<string, unknown>) =>
  graphOf({
    nodes: [node("start", "startCall", { prompt: "Help the caller.", ...start }), node("bye", "endCall", { prompt: "Say goodbye." })],
    edges: [{ id: "e1", source: "start", target: "bye", data: { label: "done", condition: "Done" } }]
  })

/** The caller says something (0.4 s of tone) and pauses (0.6 s). */
const utterance = () => {
  const samples = new Int16Array(RATE)
  samples.set(FakeSpeech.tone(RATE, 400))
  return samples
}

/** How many turns each stage's latency histogram has seen, and the frames sent. */
const telemetry = Effect.gen(function*() {
  const count = (stage: string) => Effect.map(Metric.value(Metric.tagged(turnLatency, "stage", stage)), (h) => h.count)
  return {
    stages: yield* Effect.all([count("end_of_speech"), count("recognition"), count("first_token"), count("first_audio")]),
    framesSent: (yield* Metric.value(framesSent)).count
  }
})

const until = (condition: () => boolean, what: string, millis = 10_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + millis
    while (!condition()) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep(20)
    }
  })

const setup = (options: {
  readonly start: Record<string, unknown>
  readonly lines: ReadonlyArray<string>
  readonly reply?: (request: FakeLanguageModel.FakeRequest) => FakeLanguageModel.FakeAnswer
  readonly tts?: Parameters<typeof FakeSpeech.synthesizer>[0]
  readonly stt?: SpeechToTextService
  readonly nodeTools?: SessionServices["nodeTools"]
}) =>
  Effect.gen(function*() {
    const call = yield* MemoryCallAudio.make(RATE)
    const llm = options.reply !== undefined ? Option.some(yield* FakeLanguageModel.make(options.reply)) : Option.none()
    const tts = FakeSpeech.synthesizer(options.tts)
    const services: SessionServices = {
      stt: options.stt ?? ScriptedSpeechToText.make(() => options.lines),
      tts: tts.service,
      model: Option.map(llm, (l) => ({ name: "fake", model: l.model })),
      detector: yield* energy().detector(RATE),
      playable: (id) => Effect.succeed(Either.left(`no recording ${id}`)),
      optOut: Option.none(),
      ...(options.nodeTools !== undefined ? { nodeTools: options.nodeTools } : {})
    }
    const settings = sessionSettings({ smart_turn_stop_secs: 0.3, delayed_start: false })
    const session = yield* Effect.fork(
      runSession(call.audio, { run: { id: 1, organization_id: 1 }, initialContext: {}, graph: agent(options.start), settings }, services)
    )
    return { call, tts, session, requests: Option.match(llm, { onNone: () => [], onSome: (l) => l.requests }) }
  })

describe("Session (the pipeline on in-memory ports)", () => {
  it.live("greets, hears the caller, answers in one synthesis per reply, ends with the end-call tool and hangs up", () =>
    Effect.scoped(Effect.gen(function*() {
      const { call, requests, session, tts } = yield* setup({
        start: { greeting: "Hello there." },
        lines: ["I want to stop."],
        reply: (request) =>
          request.tools.length === 0
            ? { text: "Goodbye now. Have a nice day." }
            : { text: "Sure, I understand. Let me end the call.", toolCalls: [{ name: "end_call", params: {} }] }
      })
      const before = yield* telemetry
      yield* until(() => tts.syntheses.length === 1 && call.playedMs() >= 100, "the greeting")
      yield* call.speak(utterance())
      const result = yield* Fiber.join(session)
      expect(result.failure).toBeUndefined()
      // One answered turn: each stage's latency recorded once; every frame counted.
      const after = yield* telemetry
      expect(after.stages.map((n, i) => n - before.stages[i]!)).toEqual([1, 1, 1, 1])
      expect(after.framesSent - before.framesSent).toBe(call.playedFrames())
      expect(result.state.ending).toBe("end_call_tool")
      expect(call.state.hungUp).toBe(true)
      // The model heard the greeting and the caller; the goodbye reply is asked without tools.
      expect(requests[0]!.messages.slice(1).map((m) => [m.role, messageText(m)])).toEqual([
        ["assistant", "Hello there."],
        ["user", "I want to stop."]
      ])
      expect(requests.map((r) => r.tools.length > 0)).toEqual([true, false])
      // One synthesis per reply (the greeting; the answer and its goodbye), each given every sentence.
      expect(tts.syntheses).toEqual([
        ["Hello there."],
        ["Sure, I understand.", "Let me end the call.", "Goodbye now.", "Have a nice day."]
      ])
      expect(result.record.turns.map((t) => [t.role, t.text])).toEqual([
        ["assistant", "Hello there."],
        ["user", "I want to stop."],
        ["assistant", "Sure, I understand. Let me end the call. Goodbye now. Have a nice day."]
      ])
      expect(result.latencies.length).toBe(1)
      // A listening handle was told each line as it was recorded, then the answer's latency.
      expect(call.state.notices.map((n) => n._tag === "Transcript" ? [n.role, n.text] : ["latency", n.ms])).toEqual([
        ...result.record.turns.map((t) => [t.role, t.text]),
        ["latency", result.latencies[0]]
      ])
      expect(result.tokens.outputTokens).toBe(14)
      expect(result.ttsCharacters).toBe("Hello there.".length + "Sure, I understand.Let me end the call.Goodbye now.Have a nice day.".length)
      expect(result.sttSeconds).toBeGreaterThan(0.9)
    })))

  it.live("barge-in: caller speech over an interruptible reply clears the line, cancels the reply and keeps what was heard", () =>
    Effect.scoped(Effect.gen(function*() {
      const long = "One two three four five six seven eight nine ten. Eleven twelve thirteen fourteen fifteen sixteen."
      const { call, requests, session } = yield* setup({
        start: { allow_interrupt: true },
        lines: ["Wait a moment."],
        tts: { msPerChar: 40 },
        reply: (request) =>
          request.tools.length === 0
            ? { text: "Bye." }
            : request.messages.at(-1)?.role === "user"
            ? { text: "Go ahead.", toolCalls: [{ name: "end_call", params: {} }] }
            : { text: long }
      })
      yield* until(() => call.playedMs() >= 600, "the agent to be speaking")
      yield* call.speak(utterance())
      const result = yield* Fiber.join(session)
      expect(call.state.clears).toBe(1)
      const interruption = result.events.find((e) => e.type === "rtf-interruption")
      expect(interruption).toBeDefined()
      const [first, user, answer] = result.record.turns
      expect(first).toMatchObject({ role: "assistant", interrupted: true })
      expect(first!.text.length).toBeGreaterThan(0)
      expect(first!.text.length).toBeLessThan(long.length)
      expect(user).toMatchObject({ role: "user", text: "Wait a moment." })
      expect(answer).toMatchObject({ role: "assistant", text: "Go ahead. Bye." })
      expect(requests.length).toBe(3)
    })))

  it.live("no language model: the greeting is said, then the run fails with the reason and the attempt ends failed", () =>
    Effect.scoped(Effect.gen(function*() {
      const { call, session } = yield* setup({ start: { greeting: "Hello." }, lines: [] })
      const result = yield* Fiber.join(session)
      expect(result.failure).toMatch(/no language model configured/)
      expect(call.state.failed).toBe(result.failure)
      expect(result.state).toMatchObject({ ending: "pipeline_error", gatheredContext: { error: result.failure } })
      expect(result.record.turns.map((t) => t.text)).toEqual(["Hello."])
      expect(result.events.some((e) => e.type === "rtf-pipeline-error" && e.payload.fatal)).toBe(true)
    })))

  it.live("speech synthesis failing (an engine not installed, a key refused): the run fails with the reason", () =>
    Effect.scoped(Effect.gen(function*() {
      const { call, session } = yield* setup({
        start: { greeting: "Hello." },
        lines: [],
        tts: { failWith: "espeak-ng is not installed" },
        reply: () => ({ text: "Hi." })
      })
      const result = yield* Fiber.join(session)
      expect(result.failure).toMatch(/speech synthesis failed.*espeak-ng is not installed/)
      expect(call.state.failed).toBe(result.failure)
      expect(result.state.ending).toBe("pipeline_error")
    })))

  it.live("speech recognition failing: the run fails with the reason", () =>
    Effect.scoped(Effect.gen(function*() {
      const { call, session } = yield* setup({
        start: { greeting: "Hello." },
        lines: [],
        stt: { transcribe: () => Stream.fail(new SpeechError({ service: "deepgram", message: "401 invalid API key", code: 401 })) },
        reply: () => ({ text: "Hi." })
      })
      const result = yield* Fiber.join(session)
      expect(result.failure).toMatch(/speech recognition failed: 401 invalid API key/)
      expect(call.state.failed).toBe(result.failure)
    })))

  it.live("an organization's tool: offered beside the node's own, called with the model's arguments, its waiting sentence said while it runs, its result fed back and recorded", () =>
    Effect.scoped(Effect.gen(function*() {
      const calls: Array<unknown> = []
      const lookup: OfferedTool = {
        name: "lookup_order",
        description: "Finds an order",
        parameters: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
        waiting: { _tag: "Text", text: "Let me look that up." },
        toolUuid: "tool-1",
        call: (args) =>
          Effect.as(Effect.sleep(300).pipe(Effect.tap(() => void calls.push(args))), {
            result: "{\"status\":\"shipped\",\"day\":\"Monday\"}",
            request: null,
            data: { status: "shipped" },
            record: {
              tool_uuid: "tool-1",
              tool_name: "Lookup order",
              function_name: "lookup_order",
              category: "http_api",
              mcp_tool_name: null,
              arguments: args,
              started_at: "2026-01-01T00:00:00.000Z",
              latency_ms: 300,
              status: "success",
              status_code: 200,
              response_bytes: 36,
              result_chars: 36,
              result_truncated: false,
              error: null,
              error_kind: null
            }
          })
      }
      const nodeTools = () => Effect.succeed<NodeTools>({ tools: [lookup], skipped: [] })
      const { call, requests, session, tts } = yield* setup({
        start: { greeting: "Hello.", tool_uuids: ["tool-1"] },
        lines: ["Where is order 42?"],
        nodeTools,
        reply: (request) => {
          const last = request.messages.at(-1)!
          if (request.tools.length === 0) return { text: "Bye." }
          if (last.role === "user") return { toolCalls: [{ name: "lookup_order", params: { order: "42" } }] }
          return { text: `It ships ${JSON.parse(messageText(last)).day}.`, toolCalls: [{ name: "end_call", params: {} }] }
        }
      })
      yield* until(() => call.playedMs() >= 50, "the greeting")
      yield* call.speak(utterance())
      const result = yield* Fiber.join(session)
      expect(requests[0]!.tools).toEqual(["done", "end_call", "lookup_order"])
      expect(calls).toEqual([{ order: "42" }])
      expect(tts.syntheses[1]).toEqual(["Let me look that up.", "It ships Monday.", "Bye."])
      expect(result.record.turns.at(-1)).toMatchObject({ role: "assistant", text: "Let me look that up. It ships Monday. Bye." })
      const recorded = result.events.find((e) => e.type === "rtf-tool-call")
      expect(recorded).toMatchObject({ payload: { function_name: "lookup_order", arguments: { order: "42" }, status: "success", latency_ms: 300, result_chars: 36 } })
      expect(result.toolCalls).toEqual([{ name: "lookup_order", status: "success", latencyMs: 300 }])
    })))
})
