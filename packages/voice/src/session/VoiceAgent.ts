/**
 * The voice runtime: the `CallAudioHandler` that runs an agent's graph as a conversation on an
 * answered call. Per call:
 *
 * - the caller's audio goes to the VAD (turn-taking, barge-in) and to the `SpeechToText` port;
 * - when the caller stops (VAD) and the recognizer has their words, the LLM is asked at the current
 *   node with its prompt and tools; its reply is spoken sentence by sentence as it streams in; its
 *   tool calls move the conversation (`graph/Conversation.ts`);
 * - caller speech while the agent talks on a node with `allow_interrupt` clears the playback at once
 *   and cancels the reply in flight; the transcript keeps what was played;
 * - with `voicemail_detection`, the callee's first words are checked for an answering machine (a long
 *   unbroken greeting, or the agent's model says so): the attempt then ends `voicemail`;
 * - at the end the run gets its gathered context, transcript, recordings, usage and feedback events.
 *
 * Timers (`max_call_duration`, `max_user_idle_timeout`, pacing) run on the Clock, so tests drive
 * them with TestClock.
 */
import type { CallAudio, CallAudioHandlerShape } from "@agentline/core/audio/CallAudio"
import * as Pcm from "@agentline/core/audio/Pcm"
import { VoiceActivity } from "@agentline/core/audio/VoiceActivity"
import { BlobStore } from "@agentline/core/blobs/BlobStore"
import { DoNotCallRepo } from "@agentline/core/do-not-call/DoNotCallRepo"
import { normalizeForCampaign } from "@agentline/core/phone-numbers/PhoneAddress"
import { loadPlayable, type PlayableRecording } from "@agentline/core/recordings/Recordings"
import { RecordingsRepo } from "@agentline/core/recordings/RecordingsRepo"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { iso } from "@agentline/core/Time"
import { SpeechToText, TextToSpeech } from "@agentline/core/voice/Speech"
import { validateDefinition } from "@agentline/core/workflows/DefinitionValidation"
import { WorkflowsRepo } from "@agentline/core/workflows/WorkflowsRepo"
import { LanguageModel, type Prompt } from "@effect/ai"
import { Cause, Clock, Effect, Either, Exit, Fiber, Option, Queue, Stream } from "effect"
import { applyToolCall, type ConversationState, endConversation, startConversation, turn } from "../graph/Conversation.js"
import { type ConversationGraph, conversationGraph } from "../graph/ConversationGraph.js"
import { type FeedbackEvent, pipelineError, stamp } from "../graph/FeedbackEvents.js"
import type { Utterance } from "../graph/Prompt.js"
import { makeCallRecord, recordCallerAudio, recordings, recordTurn, transcriptJson, transcriptText } from "./CallRecord.js"
import { type CallUsage, costOf, Prices } from "./Costs.js"
import { AgentLanguageModel, nodeToolkit, SpeechServiceNames } from "./LanguageModelTools.js"
import { emptySentenceBuffer, flushText, pushText } from "./Sentences.js"
import { hasOverrides, VoiceServiceOverrides } from "./ServiceOverrides.js"
import { optOutIn, saysVoicemail, type SessionSettings, sessionSettings } from "./SessionSettings.js"
import { makeSpeaker, newPlayback, type Playback, playedText, untilPlayed } from "./Speaker.js"
import { handOver } from "./Transfer.js"
import { initialVadState, stepTurn } from "./Vad.js"

type SessionEvent =
  /** `atMs`: where the voice began; `decidedAtMs`: when the VAD decided it was speech. */
  | { readonly _tag: "SpeechStarted"; readonly atMs: number; readonly decidedAtMs: number }
  | { readonly _tag: "SpeechStopped"; readonly atMs: number }
  | { readonly _tag: "Heard"; readonly text: string; readonly atMs: number }
  | { readonly _tag: "AgentDone" }
  | { readonly _tag: "CallerGone" }
  | { readonly _tag: "TimeUp"; readonly reason: string }
  /** An answering machine answered: `reason` says how it was told. */
  | { readonly _tag: "Voicemail"; readonly reason: "long_speech" | "language_model" }

/** Tool-call rounds one caller turn may take (a model that keeps transitioning is stopped here). */
const MAX_HOPS = 4

/** Artifacts larger than this are not stored (a 20-minute call at 16 kHz is about 40 MB). */
const MAX_ARTIFACT_BYTES = 200 * 1024 * 1024

export class VoiceAgent extends Effect.Service<VoiceAgent>()("@agentline/voice/VoiceAgent", {
  effect: Effect.gen(function*() {
    const runs = yield* RunsRepo
    const workflows = yield* WorkflowsRepo
    const stt = yield* SpeechToText
    const tts = yield* TextToSpeech
    const llm = yield* AgentLanguageModel
    const blobs = yield* BlobStore
    const recordingsRepo = yield* RecordingsRepo
    const prices = yield* Prices
    const names = yield* SpeechServiceNames
    const overrides = yield* Effect.serviceOption(VoiceServiceOverrides)
    const doNotCall = yield* Effect.serviceOption(DoNotCallRepo)
    const voiceActivity = yield* VoiceActivity
    const defaults = { stt, tts, llm, names }

    /** The services of a call: the defaults, with what the agent's `model_overrides` chose instead. */
    const servicesFor = (settings: SessionSettings, organizationId: number) =>
      Effect.gen(function*() {
        if (!hasOverrides(settings.overrides)) return { services: defaults, problem: undefined }
        if (Option.isNone(overrides)) {
          return {
            services: defaults,
            problem: "model_overrides cannot be used here (no service overrides in this server); the defaults are used"
          }
        }
        const chosen = yield* Effect.either(overrides.value.resolve(settings.overrides, organizationId))
        if (chosen._tag === "Left") return { services: defaults, problem: `model_overrides: ${chosen.left}; the defaults are used` }
        const o = chosen.right
        return {
          services: {
            stt: o.stt?.service ?? stt,
            tts: o.tts?.service ?? tts,
            llm: o.llm ?? llm,
            names: { stt: o.stt?.name ?? names.stt, tts: o.tts?.name ?? names.tts }
          },
          problem: undefined
        }
      })

    /** The run's agent version as a graph, its configuration and the contact's variables. */
    const load = Effect.fn("VoiceAgent.load")(function*(audio: CallAudio) {
      const run = yield* runs.findById(audio.runId)
      if (Option.isNone(run)) return Either.left("the call's run no longer exists")
      const versions = yield* workflows.versions(run.value.organization_id, run.value.workflow_id)
      const version = versions.find((v) => v.id === run.value.definition_id) ?? versions.at(-1)
      if (version === undefined) return Either.left("the call's agent has no version")
      const { definition, errors } = validateDefinition(version.workflow_definition)
      if (errors.length > 0) return Either.left(`the agent's definition cannot be run: ${errors[0]!.message}`)
      const graph = conversationGraph(definition)
      if (Either.isLeft(graph)) return Either.left(graph.left.message)
      return Either.right({
        run: run.value,
        graph: graph.right,
        settings: sessionSettings(version.workflow_configurations),
        initialContext: run.value.initial_context ?? {}
      })
    })

    const handle = (audio: CallAudio) =>
      Effect.scoped(
        Effect.gen(function*() {
          const loaded = yield* load(audio)
          if (Either.isLeft(loaded)) {
            yield* Effect.logWarning(`Voice runtime: ${loaded.left}; the line stays silent`)
            yield* runs.update(audio.runId, { merge: { gathered_context: { error: loaded.left } } }, iso(yield* Clock.currentTimeMillis))
            return yield* Stream.runDrain(audio.incoming)
          }
          yield* converse(audio, loaded.right)
        }).pipe(
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause) ? Effect.interrupt : Effect.logError("Voice runtime failed", cause)
          ),
          Effect.annotateLogs({ runId: audio.runId, attemptId: audio.attemptId })
        )
      )

    const converse = (
      audio: CallAudio,
      call: {
        readonly run: { readonly id: number; readonly organization_id: number; readonly call_type?: string | null }
        readonly graph: ConversationGraph
        readonly settings: SessionSettings
        readonly initialContext: Record<string, unknown>
      }
    ) =>
      Effect.gen(function*() {
        const { graph, settings } = call
        const chosen = yield* servicesFor(settings, call.run.organization_id)
        // This call's services shadow the defaults of the same names.
        const { llm, names, stt, tts } = chosen.services
        const startedAt = yield* Clock.currentTimeMillis
        const callTime = Effect.map(Clock.currentTimeMillis, (now) => now - startedAt)
        const record = makeCallRecord(audio.sampleRate)
        const events = yield* Queue.unbounded<SessionEvent>()
        const feedback: Array<FeedbackEvent & { readonly timestamp: string }> = []
        const latencies: Array<number> = []
        const usage = { inputTokens: 0, outputTokens: 0, sttSeconds: 0 }
        const note = (list: ReadonlyArray<FeedbackEvent>) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            for (const event of list) feedback.push(stamp(event, new Date(now)))
          })
        const speaker = makeSpeaker({ audio, tts, record, callTime })

        const started = startConversation(graph, call.initialContext)
        let state: ConversationState = started.state
        yield* note(started.events)
        if (chosen.problem !== undefined) {
          yield* Effect.logWarning(chosen.problem)
          yield* note([pipelineError(chosen.problem, false)])
        }
        const history: Array<Prompt.MessageEncoded> = []

        // The caller's audio: recorded, to the VAD, to the recognizer.
        const sttInput = yield* Queue.unbounded<Option.Option<Pcm.PcmFrame>>()
        const detector = yield* voiceActivity.detector(audio.sampleRate)
        const listen = Effect.gen(function*() {
          let vad = initialVadState
          const vadSettings = settings.vad
          yield* Stream.runForEach(audio.incoming, (event) =>
            Effect.gen(function*() {
              if (event._tag !== "Audio") return
              const at = yield* callTime
              const frameMs = (event.frame.samples.length * 1000) / event.frame.sampleRate
              recordCallerAudio(record, event.frame, at - frameMs)
              yield* Queue.offer(sttInput, Option.some(event.frame))
              const voiced = yield* detector.isVoice(event.frame.samples)
              const [next, changes] = stepTurn(vadSettings, vad, frameMs, voiced)
              vad = next
              // The VAD counts the audio it was given; a provider may not stream while nobody speaks, so
              // its times are turned into call time from how far behind the current frame they are.
              for (const change of changes) {
                const atMs = at - (next.atMs - change.atMs)
                yield* Queue.offer(events, change._tag === "SpeechStarted" ? { ...change, atMs, decidedAtMs: at } : { ...change, atMs })
              }
            }))
          yield* Queue.offer(sttInput, Option.none())
          yield* Queue.offer(events, { _tag: "CallerGone" })
        })
        const recognize = Stream.fromQueue(sttInput).pipe(
          Stream.takeWhile(Option.isSome),
          Stream.map((frame) => Pcm.encode(frame.value, { encoding: "l16le", sampleRate: audio.sampleRate })),
          (frames) => stt.transcribe({ encoding: "l16le", sampleRate: audio.sampleRate }, frames),
          Stream.runForEach((event) =>
            Effect.gen(function*() {
              if (event._tag === "Final" && event.text.trim() !== "") {
                yield* Queue.offer(events, { _tag: "Heard", text: event.text.trim(), atMs: yield* callTime })
              }
              if (event._tag === "Metadata") usage.sttSeconds += event.audioSeconds
            })
          ),
          Effect.catchAll((error) => note([pipelineError(`speech recognition failed: ${error.message}`, false)]))
        )
        yield* Effect.forkScoped(listen)
        yield* Effect.forkScoped(recognize)
        yield* Effect.forkScoped(
          Effect.zipRight(Effect.sleep(settings.maxCallMillis), Queue.offer(events, { _tag: "TimeUp", reason: "max_duration_exceeded" }))
        )

        /** The call's recordings, each loaded once (a transition taken twice plays the same audio). */
        const loaded = new Map<string, Either.Either<PlayableRecording, string>>()
        const readBlob = (key: string) =>
          Effect.gen(function*() {
            const stream = yield* Effect.option(blobs.stream(key))
            if (Option.isNone(stream)) return Option.none<Uint8Array>()
            const chunks = [...(yield* Stream.runCollect(stream.value))]
            const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
            let offset = 0
            for (const chunk of chunks) {
              bytes.set(chunk, offset)
              offset += chunk.length
            }
            return Option.some(bytes)
          })
        const playable = (recordingId: string) =>
          Effect.gen(function*() {
            const known = loaded.get(recordingId)
            if (known !== undefined) return known
            // Storage failing while the call runs is one more reason the recording cannot be played, not the call's end.
            const result = yield* loadPlayable(recordingsRepo, readBlob, call.run.organization_id, recordingId).pipe(
              Effect.catchAllDefect((defect) =>
                Effect.succeed(
                  Either.left(`recording '${recordingId}' could not be loaded (${String((defect as any)?.message ?? defect)})`)
                )
              )
            )
            loaded.set(recordingId, result)
            return result
          })

        /**
         * Says an utterance outside the LLM (greeting, transition speech). A recording that cannot be
         * played is logged in the run; its text stands in when there is one, else nothing is said.
         */
        const say = (utterance: Utterance | undefined, playback: Playback) =>
          Effect.gen(function*() {
            if (utterance === undefined) return
            if (utterance._tag === "Text") return yield* speaker.sentence(utterance.text, playback)
            const recording = yield* playable(utterance.recordingId)
            if (Either.isRight(recording)) return yield* speaker.recording(recording.right.transcript, recording.right.audio, playback)
            const instead = utterance.fallbackText !== undefined ? "the text is said instead" : "nothing is said instead"
            yield* Effect.logWarning(`Voice runtime: ${recording.left}; ${instead}`)
            yield* note([pipelineError(`${recording.left}; ${instead}`, false)])
            if (utterance.fallbackText !== undefined) yield* speaker.sentence(utterance.fallbackText, playback)
          })

        /** One LLM reply at the current node, spoken as it streams; returns the tool calls it made. */
        const reply = (model: { readonly name: string; readonly model: LanguageModel.Service }, playback: Playback, allowTools: boolean) =>
          Effect.gen(function*() {
            const current = turn(graph, state)
            const { handlers, toolkit } = nodeToolkit(allowTools ? current.tools : [])
            const prompt: Prompt.RawInput = [{ role: "system", content: current.systemPrompt }, ...history] as any
            const sentences = yield* Queue.unbounded<Option.Option<string>>()
            const speaking = yield* Effect.fork(
              Stream.fromQueue(sentences).pipe(
                Stream.takeWhile(Option.isSome),
                Stream.runForEach((text) => speaker.sentence(text.value, playback))
              )
            )
            let buffer = emptySentenceBuffer
            const calls: Array<{ id: string; name: string; params: unknown }> = []
            const parts = model.model.streamText({ prompt, toolkit, disableToolCallResolution: true } as any) as Stream.Stream<any, unknown>
            yield* parts.pipe(
              Stream.runForEach((part: any) =>
                Effect.gen(function*() {
                  if (part.type === "text-delta") {
                    const [next, done] = pushText(buffer, part.delta)
                    buffer = next
                    for (const s of done) yield* Queue.offer(sentences, Option.some(s))
                  } else if (part.type === "tool-call") {
                    calls.push({ id: part.id, name: part.name, params: part.params })
                  } else if (part.type === "finish") {
                    usage.inputTokens += part.usage.inputTokens ?? 0
                    usage.outputTokens += part.usage.outputTokens ?? 0
                  }
                })
              ),
              Effect.provide(handlers)
            )
            for (const s of flushText(buffer)) yield* Queue.offer(sentences, Option.some(s))
            yield* Queue.offer(sentences, Option.none())
            yield* Fiber.join(speaking)
            return calls
          })

        /** The agent's turn: replies and tool calls until it has said what it has to say. */
        const agentTurn = (userStoppedAt: number | undefined) =>
          Effect.gen(function*() {
            const playback = newPlayback()
            const turnStart = yield* callTime
            const finish = (interrupted: boolean) =>
              Effect.gen(function*() {
                const text = playedText(playback)
                recordTurn(record, {
                  role: "assistant",
                  text,
                  startMs: playback.firstFrameAtMs ?? turnStart,
                  endMs: interrupted ? yield* callTime : yield* speaker.drainedAt,
                  ...(interrupted ? { interrupted } : {})
                })
                if (userStoppedAt !== undefined && playback.firstFrameAtMs !== undefined) {
                  latencies.push(Math.round(playback.firstFrameAtMs - userStoppedAt))
                }
              })
            yield* Effect.gen(function*() {
              if (Option.isNone(llm)) return
              for (let hop = 0; hop < MAX_HOPS && state.ending === undefined; hop++) {
                const before = playback.sentences.length
                const calls = yield* reply(llm.value, playback, true)
                const said = playback.sentences.slice(before).join(" ")
                history.push({
                  role: "assistant",
                  content: [
                    ...(said !== "" ? [{ type: "text", text: said }] : []),
                    ...calls.map((c) => ({ type: "tool-call", id: c.id, name: c.name, params: c.params, providerExecuted: false }))
                  ]
                } as any)
                if (calls.length === 0) return
                for (const c of calls) {
                  const step = applyToolCall(graph, state, { id: c.id, name: c.name, arguments: c.params })
                  state = step.state
                  yield* note(step.events)
                  history.push(
                    {
                      role: "tool",
                      content: [{
                        type: "tool-result",
                        id: c.id,
                        name: c.name,
                        result: step.result,
                        isFailure: false,
                        providerExecuted: false
                      }]
                    } as any
                  )
                  yield* say(step.speech, playback)
                }
              }
              // The end-call tool asks for a goodbye: one more reply, without tools.
              if (state.ending !== undefined && state.transfer === undefined) yield* reply(llm.value, playback, false)
            }).pipe(
              Effect.catchAllCause((cause) =>
                Cause.isInterruptedOnly(cause)
                  ? Effect.failCause(cause)
                  : Effect.zipRight(
                    Effect.logError("The language model's turn failed", cause),
                    note([pipelineError(`language model failed: ${Cause.pretty(cause).split("\n")[0]}`, false)])
                  )
              ),
              Effect.onExit((exit) => finish(Exit.isInterrupted(exit)))
            )
            yield* untilPlayed(speaker, callTime)
          })

        // The opening: delayed start, greeting; without a greeting the LLM speaks first.
        const opening = Effect.gen(function*() {
          if (started.opening.delaySeconds > 0) yield* Effect.sleep(started.opening.delaySeconds * 1000)
          const playback = newPlayback()
          // What was played of the greeting is the agent's first turn, also when the caller cut it short.
          const greeted = (interrupted: boolean) =>
            Effect.gen(function*() {
              const greeting = playedText(playback)
              if (greeting === "") return
              recordTurn(record, {
                role: "assistant",
                text: greeting,
                startMs: playback.firstFrameAtMs ?? 0,
                endMs: interrupted ? yield* callTime : yield* speaker.drainedAt,
                ...(interrupted ? { interrupted } : {})
              })
              history.push({ role: "assistant", content: [{ type: "text", text: greeting }] } as any)
            })
          yield* say(started.opening.greeting, playback).pipe(Effect.onExit((exit) => greeted(Exit.isInterrupted(exit))))
          if (Option.isNone(llm)) {
            yield* Effect.logWarning("No language model is configured (AGENTLINE_LLM): the agent plays its greeting and hangs up")
            state = endConversation({
              ...state,
              gatheredContext: { ...state.gatheredContext, error: "no language model configured: set AGENTLINE_LLM (see docs/voice.md)" }
            }, "no_language_model")
            yield* untilPlayed(speaker, callTime)
            return
          }
          if (started.opening.greeting === undefined) yield* agentTurn(undefined)
          else yield* untilPlayed(speaker, callTime)
        })

        /** Speech failures are logged in the run; the conversation goes on (the caller may still talk). */
        const speechSafe = <A, E>(effect: Effect.Effect<A, E>) =>
          Effect.catchAll(
            Effect.asVoid(effect),
            (error) => note([pipelineError(`speech synthesis failed: ${String((error as any)?.message ?? error)}`, false)])
          )
        let agent: Option.Option<Fiber.RuntimeFiber<unknown, unknown>> = Option.some(
          yield* Effect.fork(Effect.zipRight(speechSafe(opening), Queue.offer(events, { _tag: "AgentDone" })))
        )
        let idle: Option.Option<Fiber.RuntimeFiber<unknown, unknown>> = Option.none()
        let heard: Array<{ text: string; atMs: number }> = []
        let callerSpeaking = false
        let callerStartedAt = 0
        let callerStoppedAt: number | undefined
        let endReason: string | undefined

        const startIdleTimer = Effect.gen(function*() {
          if (Option.isSome(idle)) yield* Fiber.interrupt(idle.value)
          idle = Option.some(
            yield* Effect.fork(Effect.zipRight(
              Effect.sleep(settings.idleMillis),
              Queue.offer(events, { _tag: "TimeUp", reason: "user_idle_max_duration_exceeded" })
            ))
          )
        })
        const stopIdleTimer = Effect.gen(function*() {
          if (Option.isSome(idle)) yield* Fiber.interrupt(idle.value)
          idle = Option.none()
        })

        // Answering machine detection looks at the callee's first words only.
        let detecting = settings.voicemail !== undefined
        let longSpeech: Option.Option<Fiber.RuntimeFiber<unknown, unknown>> = Option.none()
        let voicemailReason: string | undefined
        /** Whether the agent's model hears an answering machine in `text` (usage counted as the agent's). */
        const soundsLikeVoicemail = (text: string) =>
          Effect.gen(function*() {
            const detection = settings.voicemail
            if (detection === undefined || !detection.useLanguageModel || Option.isNone(llm)) return false
            const response = yield* llm.value.model.generateText({
              prompt: [{ role: "system", content: detection.systemPrompt }, { role: "user", content: text }] as any
            })
            usage.inputTokens += response.usage.inputTokens ?? 0
            usage.outputTokens += response.usage.outputTokens ?? 0
            return saysVoicemail(response.text)
          }).pipe(Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause)
              ? Effect.failCause(cause)
              : Effect.as(note([pipelineError(`voicemail detection failed: ${Cause.pretty(cause).split("\n")[0]}`, false)]), false)
          ))

        /**
         * A caller who says they want no more calls is put on the organization's do-not-call list, with
         * this run as the source (once per call); the conversation goes on for the agent to close it.
         */
        let optedOut = false
        const optOut = (text: string) =>
          Effect.gen(function*() {
            if (optedOut || Option.isNone(doNotCall)) return
            const phrase = optOutIn(text, settings.optOutPhrases)
            if (phrase === undefined) return
            optedOut = true
            const context = call.initialContext
            const number = String(
              (call.run.call_type === "inbound" ? context.caller_number : context.called_number) ?? context.phone_number ?? ""
            )
            const normalized = normalizeForCampaign(number)
            if (Either.isLeft(normalized)) {
              return yield* note([pipelineError(`the caller asked not to be called ("${phrase}") but their number is unknown`, false)])
            }
            yield* doNotCall.value.add(call.run.organization_id, [{
              phone_number: normalized.right,
              reason: `asked during the call: "${text.slice(0, 200)}"`,
              source: "run",
              run_id: call.run.id
            }], iso(yield* Clock.currentTimeMillis))
            state = { ...state, gatheredContext: { ...state.gatheredContext, do_not_call_requested: true } }
            yield* note([{ type: "rtf-do-not-call", payload: { phrase, phone_number: normalized.right } } as any])
          })

        /** The caller finished a turn and their words are in: the agent answers. */
        const respond = Effect.gen(function*() {
          if (callerSpeaking || heard.length === 0 || Option.isSome(agent) || state.ending !== undefined) return
          const text = heard.map((h) => h.text).join(" ")
          recordTurn(record, {
            role: "user",
            text,
            startMs: Math.min(callerStartedAt, heard[0]!.atMs),
            endMs: callerStoppedAt ?? heard.at(-1)!.atMs
          })
          feedback.push(
            stamp({ type: "rtf-user-transcription", payload: { text, final: true } } as any, new Date(startedAt + (yield* callTime)))
          )
          history.push({ role: "user", content: [{ type: "text", text }] } as any)
          heard = []
          yield* optOut(text)
          yield* stopIdleTimer
          const checkFirst = detecting
          detecting = false
          const answer = Effect.gen(function*() {
            if (checkFirst && (yield* soundsLikeVoicemail(text))) {
              return yield* Queue.offer(events, { _tag: "Voicemail", reason: "language_model" })
            }
            yield* speechSafe(agentTurn(callerStoppedAt))
          })
          agent = Option.some(yield* Effect.fork(Effect.zipRight(answer, Queue.offer(events, { _tag: "AgentDone" }))))
        })

        while (endReason === undefined) {
          const event = yield* Queue.take(events)
          switch (event._tag) {
            case "SpeechStarted": {
              callerSpeaking = true
              callerStartedAt = event.atMs
              yield* stopIdleTimer
              if (detecting && settings.voicemail !== undefined && Option.isNone(longSpeech)) {
                longSpeech = Option.some(
                  yield* Effect.fork(Effect.zipRight(
                    Effect.sleep(settings.voicemail.longSpeechMillis),
                    Queue.offer(events, { _tag: "Voicemail", reason: "long_speech" })
                  ))
                )
              }
              if (Option.isSome(agent) && turn(graph, state).allowInterrupt && state.ending === undefined) {
                // Barge-in: the provider drops what it holds first, then the reply in flight is cancelled.
                const fiber = agent.value
                yield* Fiber.interruptFork(fiber)
                yield* audio.clear
                yield* speaker.cleared
                const clearedAt = yield* callTime
                yield* Fiber.await(fiber)
                agent = Option.none()
                yield* note([{
                  type: "rtf-interruption",
                  payload: {
                    speech_started_at_ms: Math.round(event.atMs),
                    decided_at_ms: Math.round(event.decidedAtMs),
                    cleared_at_ms: Math.round(clearedAt)
                  }
                } as any])
              }
              break
            }
            case "SpeechStopped":
              callerSpeaking = false
              callerStoppedAt = event.atMs
              if (Option.isSome(longSpeech)) {
                yield* Fiber.interrupt(longSpeech.value)
                longSpeech = Option.none()
              }
              yield* respond
              break
            case "Heard":
              heard.push({ text: event.text, atMs: event.atMs })
              yield* respond
              break
            case "AgentDone":
              agent = Option.none()
              if (state.ending !== undefined) endReason = state.ending
              else if (heard.length > 0) yield* respond
              else if (!callerSpeaking) yield* startIdleTimer
              break
            case "CallerGone":
              endReason = "user_hangup"
              break
            case "TimeUp":
              endReason = event.reason
              break
            case "Voicemail":
              endReason = "voicemail_detected"
              voicemailReason = event.reason
              yield* note([{ type: "rtf-voicemail-detected", payload: { reason: event.reason } } as any])
              break
          }
        }
        if (Option.isSome(longSpeech)) yield* Fiber.interrupt(longSpeech.value)

        if (Option.isSome(agent)) yield* Fiber.interrupt(agent.value)
        yield* stopIdleTimer
        if (voicemailReason !== undefined) {
          state = {
            ...state,
            gatheredContext: { ...state.gatheredContext, voicemail_detected: true, voicemail_detected_by: voicemailReason }
          }
        }
        // A machine's call is dispositioned as the outcome it ends with, whatever the agent had said before.
        if (state.ending === undefined) state = endConversation(state, endReason, voicemailReason !== undefined ? "voicemail" : undefined)
        if (voicemailReason !== undefined) yield* audio.endAsVoicemail(voicemailReason)
        else if (state.transfer !== undefined && endReason === state.ending) {
          state = { ...state, gatheredContext: { ...state.gatheredContext, ...(yield* handOver(audio, state.transfer, note)) } }
        } else if (endReason !== "user_hangup") yield* audio.hangUp
        const durationMs = yield* callTime
        yield* save(audio, call.run, {
          state,
          record,
          startedAt,
          durationMs,
          feedback,
          latencies,
          usage: {
            llm: Option.isSome(llm) ? { [llm.value.name]: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } } : {},
            stt: { [names.stt]: { seconds: usage.sttSeconds } },
            tts: { [names.tts]: { characters: speaker.characters() } }
          }
        })
      })

    /** The call's results on its run: merged with what the dispatcher writes at the call's end, whichever comes first. */
    const save = (
      audio: CallAudio,
      run: { readonly id: number; readonly organization_id: number },
      result: {
        readonly state: ConversationState
        readonly record: ReturnType<typeof makeCallRecord>
        readonly startedAt: number
        readonly durationMs: number
        readonly feedback: ReadonlyArray<unknown>
        readonly latencies: ReadonlyArray<number>
        readonly usage: CallUsage
      }
    ) =>
      Effect.gen(function*() {
        const prefix = `${run.organization_id}/runs/${run.id}`
        const files = recordings(result.record, result.durationMs)
        const put = (name: string, bytes: Uint8Array, contentType: string) =>
          Effect.as(blobs.put(`${prefix}/${name}`, Stream.make(bytes), { maxBytes: MAX_ARTIFACT_BYTES, contentType }), `${prefix}/${name}`)
        const artifacts = yield* Effect.all({
          recording: put("recording.wav", files.recording, "audio/wav"),
          user_recording: put("user.wav", files.user_recording, "audio/wav"),
          bot_recording: put("bot.wav", files.bot_recording, "audio/wav"),
          transcript: put(
            "transcript.txt",
            new TextEncoder().encode(transcriptText(result.record, result.startedAt)),
            "text/plain; charset=utf-8"
          )
        }).pipe(
          Effect.map((keys) => keys as Partial<Record<"recording" | "user_recording" | "bot_recording" | "transcript", string>>),
          Effect.catchAll((error) => Effect.as(Effect.logError("Could not store the call's recordings", error), {}))
        )
        const { call_disposition, call_tags, mapped_call_disposition, ...gathered } = result.state.gatheredContext
        yield* runs.update(audio.runId, {
          artifacts,
          merge: {
            gathered_context: { ...gathered, call_disposition, mapped_call_disposition, call_tags, end_reason: result.state.ending },
            logs: {
              realtime_feedback_events: result.feedback,
              transcript: transcriptJson(result.record),
              turn_latency_ms: result.latencies,
              // Which detector decided the turns (docs/voice.md, AGENTLINE_VAD).
              voice_activity_detector: voiceActivity.name
            },
            // The reference's shape: tokens per model, characters per voice; seconds of audio per recognizer.
            usage_info: {
              llm: Object.fromEntries(
                Object.entries(result.usage.llm).map(([key, u]) => [key, {
                  prompt_tokens: u.inputTokens,
                  completion_tokens: u.outputTokens,
                  total_tokens: u.inputTokens + u.outputTokens
                }])
              ),
              tts: Object.fromEntries(Object.entries(result.usage.tts).map(([key, u]) => [key, u.characters])),
              stt: Object.fromEntries(Object.entries(result.usage.stt).map(([key, u]) => [key, Math.round(u.seconds * 100) / 100])),
              conversation_duration_seconds: Math.round(result.durationMs / 10) / 100
            },
            cost_info: costOf(prices, result.usage)
          }
        }, iso(yield* Clock.currentTimeMillis))
      })

    return { handle } satisfies CallAudioHandlerShape
  })
}) {}
