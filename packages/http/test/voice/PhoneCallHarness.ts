/**
 * What the voice end-to-end tests share: the whole server on a database with a fake carrier (Twilio's unless told),
 * the fake OpenAI-compatible LLM (playing `ConversationScript.respond`), the scripted recognizer and
 * espeak-ng for the agent; and the person on the phone, whose speech is synthesized at the line's rate.
 */
import type { Prices as PriceTable } from "@agentline/voice/session/Costs"
import * as LocalTextToSpeech from "@agentline/voice-local/LocalTextToSpeech"
import { startFakeOpenAi, type Received } from "@agentline/voice-openai/testing/FakeOpenAi"
import * as ChatLanguageModel from "@agentline/voice-openai/ChatLanguageModel"
import { Prices } from "@agentline/voice/session/Costs"
import { AgentLanguageModel, SpeechServiceNames } from "@agentline/voice/session/LanguageModelTools"
import * as ScriptedSpeechToText from "@agentline/voice/testing/ScriptedSpeechToText"
import { TextToSpeech } from "@agentline/core/voice/Speech"
import * as Pcm from "@agentline/core/audio/Pcm"
import { OpenAiClient } from "@effect/ai-openai"
import { carrier as twilio } from "@agentline/telephony-twilio/testing/Carrier"
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { FetchHttpClient } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Chunk, Context, Effect, Layer, Option, Redacted, Stream } from "effect"
import { type CarrierUnderTest, pcmLeg, type PcmLeg, type Started } from "../contract/Carrier.js"
import { eventually } from "../contract/ContractMedia.js"
import { attemptOf, freshNumber } from "../contract/Contract.js"
import { call } from "../Harness.js"
import { expect } from "@effect/vitest"
import { freePort, liveApp } from "../contract/LiveServer.js"
import { respond } from "./ConversationScript.js"
import * as Tracing from "../../src/observability/Tracing.js"
import { type OtlpSpan, startOtlpReceiver } from "../OtlpReceiver.js"

export class Fakes extends Context.Tag("voice-test/Fakes")<Fakes, {
  readonly carrier: Omit<Started, "adapter"> & { readonly adapter: TelephonyProvider; readonly provider: string }
  readonly llmRequests: Array<Received>
  /** The spans the server exported (with `traces`; else none). */
  readonly spans: ReadonlyArray<OtlpSpan>
}>() {}

/**
 * The server with the fakes; `callerLines` is read at each call (the scripted recognizer's lines).
 * `carrier`: the fake carrier calls go through (Twilio's unless said). With `traces`, the server
 * exports its spans over OTLP/HTTP (`observability/Tracing.ts`, as `agentline serve` does with
 * `OTEL_EXPORTER_OTLP_ENDPOINT`) to an in-process receiver, in batches every 200 ms.
 */
export const voiceLayer = (
  dialect: "sqlite" | "pg",
  callerLines: () => ReadonlyArray<string>,
  prices: PriceTable["Type"],
  settings: Parameters<typeof liveApp>[5] = {},
  carrierUnderTest: CarrierUnderTest = twilio,
  options: { readonly traces?: boolean } = {}
) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const port = yield* freePort
    const otlp = options.traces === true
      ? yield* Effect.acquireRelease(Effect.promise(startOtlpReceiver), (r) => Effect.promise(r.close))
      : undefined
    if (otlp !== undefined) {
      // Read by the span processor when the tracing layer is built, below.
      const saved = process.env.OTEL_BSP_SCHEDULE_DELAY
      yield* Effect.acquireRelease(
        Effect.sync(() => (process.env.OTEL_BSP_SCHEDULE_DELAY = "200")),
        () => Effect.sync(() => (saved === undefined ? delete process.env.OTEL_BSP_SCHEDULE_DELAY : (process.env.OTEL_BSP_SCHEDULE_DELAY = saved)))
      )
    }
    const started = yield* Effect.acquireRelease(
      Effect.promise(() => carrierUnderTest.start({ publicUrl: `http://127.0.0.1:${port}` })),
      (s) => Effect.promise(() => s.fake.close())
    )
    const carrier = { ...started, provider: carrierUnderTest.provider, adapter: yield* started.adapter.pipe(Effect.provide(FetchHttpClient.layer)) }
    const llm = yield* startFakeOpenAi([], respond)
    const languageModel = Layer.effect(
      AgentLanguageModel,
      Effect.map(ChatLanguageModel.make({ model: "fake-model" }), (model) => Option.some({ name: "openai:fake-model", model }))
    ).pipe(Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make("sk-fake"), apiUrl: llm.url })), Layer.provide(FetchHttpClient.layer))
    const voiceServices = Layer.mergeAll(
      ScriptedSpeechToText.layer(callerLines),
      LocalTextToSpeech.portLayer().pipe(Layer.provide(NodeContext.layer)),
      languageModel,
      Layer.succeed(SpeechServiceNames, { stt: "scripted", tts: "local" }),
      Layer.succeed(Prices, prices)
    )
    return liveApp(dialect, port, [carrier.adapter], undefined, voiceServices, settings).pipe(
      Layer.provide(otlp === undefined ? Layer.empty : Tracing.layer({ endpoint: Option.some(`${otlp.url}/v1/traces`), serviceName: "agentline" }, "test")),
      Layer.provideMerge(Layer.succeed(Fakes, { carrier, llmRequests: llm.received, spans: otlp?.spans ?? [] }))
    )
  }))

/** The person on the phone: speech synthesized at the line's rate. */
export const speech = (text: string, sampleRate: number) =>
  Effect.gen(function*() {
    const tts = yield* TextToSpeech
    const chunks = yield* Stream.runCollect(tts.synthesize({ encoding: "l16le", sampleRate }, Stream.make(text)))
    const pcm = Chunk.toReadonlyArray(chunks).map((c) => Pcm.decode(c.audio).samples)
    const out = new Int16Array(pcm.reduce((n, p) => n + p.length, 0))
    let offset = 0
    for (const p of pcm) {
      out.set(p, offset)
      offset += p.length
    }
    return out
  }).pipe(Effect.provide(LocalTextToSpeech.portLayer().pipe(Layer.provide(NodeContext.layer))))

export const silence = (seconds: number, sampleRate: number) => new Int16Array(Math.round(seconds * sampleRate))

/** The person says `text`, then the line is silent for 1.2 s. */
export const say = (leg: PcmLeg, text: string) =>
  Effect.gen(function*() {
    leg.speak(yield* speech(text, leg.sampleRate))
    leg.speak(silence(1.2, leg.sampleRate))
  })

/** Waits until the agent has said something new and stopped (its audio stopped growing). */
export const agentFinishedSpeaking = (leg: PcmLeg, since: number, what: string) =>
  Effect.gen(function*() {
    yield* eventually(() => leg.received().length > since + leg.sampleRate / 2, what, 30_000)
    let last = -1
    while (leg.received().length !== last) {
      last = leg.received().length
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 400)))
    }
    return last
  })

export const download = (url: string) =>
  Effect.promise(() => fetch(url).then(async (r) => ({ status: r.status, body: new Uint8Array(await r.arrayBuffer()) })))

/**
 * Places a call of the agent to a fresh number of the fake carrier, whose callee answers and talks: the
 * run, the attempt's provider call id and the callee's media leg.
 */
export const placeTalkingCall = (apiKey: string, workflowUuid: string, initialContext?: Record<string, unknown>) =>
  Effect.gen(function*() {
    const { carrier } = yield* Fakes
    const to = freshNumber()
    carrier.fake.behave(to, "talking")
    const placed = yield* call("POST", `/api/v1/public/agent/workflow/${workflowUuid}`, {
      apiKey,
      body: { phone_number: to, ...(initialContext !== undefined ? { initial_context: initialContext } : {}) }
    })
    expect(placed.status).toBe(200)
    const runId = placed.body.workflow_run_id as number
    const attempt = yield* attemptOf(runId)
    const leg = pcmLeg(yield* Effect.promise(() => carrier.fake.media(attempt.providerCallId)))
    return { runId, providerCallId: attempt.providerCallId, leg }
  })
