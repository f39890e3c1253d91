/**
 * One call's conversation: the stages joined by queues, and the turn-taking machine
 * (`TurnTaking.ts`) deciding. The listener and the recognizer turn the caller's audio into events; the
 * session feeds each event to the machine and runs its decisions: the agent's answers (responder and
 * speaker, `AgentTurns.ts`) in a fiber of their own, cut on barge-in; the idle, long-speech and
 * max-duration timers; the end. What it returns is the call's result for the run's save
 * (`RunSave.ts`); storage is not touched here, so the whole session runs on in-memory ports in tests.
 */
import type { CallAudio } from "@agentline/core/audio/CallAudio"
import type * as Pcm from "@agentline/core/audio/Pcm"
import type { VoiceDetector } from "@agentline/core/audio/VoiceActivity"
import type { PlayableRecording } from "@agentline/core/recordings/Recordings"
import type { NodeTools } from "@agentline/core/tools/ToolCalls"
import type { SpeechToTextService, TextToSpeechService } from "@agentline/core/voice/Speech"
import { Cause, Clock, Effect, Either, Fiber, Option, Queue } from "effect"
import type { ConversationState } from "../graph/Conversation.js"
import type { ConversationGraph, ConversationNode } from "../graph/ConversationGraph.js"
import { allowsInterrupt } from "../graph/FeedbackEvents.js"
import { type CallRecord, makeCallRecord, recordTurn } from "../session/CallRecord.js"
import type { SessionSettings } from "../session/SessionSettings.js"
import { makeAgentTurns } from "./AgentTurns.js"
import { listen } from "./Listener.js"
import type { NamedModel, Tokens } from "./ModelReply.js"
import { recognize } from "./Recognizer.js"
import { makeResponder } from "./Responder.js"
import { makeEventLog, type RunEvent, type StampedEvent } from "./RunEvents.js"
import { makeOptOut, type OptOutCall, soundsLikeVoicemail } from "./Screening.js"
import { makeSpeaker } from "./Speaker.js"
import { handOver } from "./Transfer.js"
import { initialTurnState, stepTurnTaking, type TurnDecision, type TurnEvent } from "./TurnTaking.js"

export interface SessionCall extends OptOutCall {
  readonly graph: ConversationGraph
  readonly settings: SessionSettings
}

export interface SessionServices {
  readonly stt: SpeechToTextService
  readonly tts: TextToSpeechService
  readonly model: Option.Option<NamedModel>
  readonly detector: VoiceDetector
  readonly playable: (recordingId: string) => Effect.Effect<Either.Either<PlayableRecording, string>>
  readonly optOut: Parameters<typeof makeOptOut>[0]
  readonly nodeTools?: (node: ConversationNode) => Effect.Effect<NodeTools>
}

/** What a call leaves for its run. */
export interface SessionResult {
  readonly state: ConversationState
  readonly record: CallRecord
  readonly startedAt: number
  readonly durationMs: number
  readonly events: ReadonlyArray<StampedEvent>
  readonly latencies: ReadonlyArray<number>
  readonly tokens: Tokens
  readonly sttSeconds: number
  readonly ttsCharacters: number
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly status: "success" | "error"; readonly latencyMs: number }>
  /** Why the agent could not talk, when it could not: the run failed. */
  readonly failure: string | undefined
}

type Timer = "idle" | "longSpeech"

/** Why the agent cannot talk, from what failed in its turn. */
export const failureReason = (error: { readonly _tag: string; readonly message: string }): string =>
  error._tag === "SpeechError"
    ? `speech synthesis failed: ${error.message}`
    : error._tag === "NoLanguageModel"
    ? error.message
    : `language model failed: ${error.message}`

/** Runs the conversation on `audio` until the call ends; ends the call (hang-up, voicemail, failed). */
export const runSession = (audio: CallAudio, call: SessionCall, services: SessionServices, problems: ReadonlyArray<RunEvent> = []) =>
  Effect.gen(function*() {
    const { graph, settings } = call
    const startedAt = yield* Clock.currentTimeMillis
    const callTime = Effect.map(Clock.currentTimeMillis, (now) => now - startedAt)
    const record = makeCallRecord(audio.sampleRate)
    const log = makeEventLog()
    const events = yield* Queue.unbounded<TurnEvent>()
    const latencies: Array<number> = []
    const stt = { seconds: 0 }

    const responder = makeResponder({
      graph,
      initialContext: call.initialContext,
      model: services.model,
      ...(services.nodeTools !== undefined ? { nodeTools: services.nodeTools } : {}),
      note: log.note
    })
    yield* log.note([...responder.openingEvents, ...problems])
    const speaker = makeSpeaker({ audio, tts: services.tts, record, callTime })
    const turns = makeAgentTurns({ responder, speaker, record, callTime, playable: services.playable, note: log.note, latencies, notify: audio.notify })
    const optOut = makeOptOut(services.optOut, call, log.note)

    // The caller's audio: recorded, to the VAD (listener), to the recognizer.
    const frames = yield* Queue.unbounded<Option.Option<Pcm.PcmFrame>>()
    const interruptible = () => allowsInterrupt(responder.state().node) && responder.state().ending === undefined
    yield* Effect.forkScoped(listen({ incoming: audio.incoming, detector: services.detector, vad: settings.vad, record, callTime, recognizer: frames, interruptible, events }))
    yield* Effect.forkScoped(recognize({ stt: services.stt, sampleRate: audio.sampleRate, frames, callTime, events, usage: stt }))
    yield* Effect.forkScoped(Effect.zipRight(Effect.sleep(settings.maxCallMillis), Queue.offer(events, { _tag: "TimeUp", reason: "max_duration_exceeded" })))

    /** An agent fiber tells the machine how it ended: done, failed (the agent cannot talk), or nothing when cut. */
    const agentFiber = <E extends { readonly _tag: string; readonly message: string }>(work: Effect.Effect<void, E>) =>
      Effect.fork(work.pipe(
        Effect.matchCauseEffect({
          onSuccess: () => Effect.asVoid(Queue.offer(events, { _tag: "AgentDone", ending: responder.state().ending })),
          onFailure: (cause) =>
            Cause.isInterruptedOnly(cause) ? Effect.void : Effect.gen(function*() {
              const reason = Either.match(Cause.failureOrCause(cause), {
                onLeft: failureReason,
                onRight: (c) => Cause.pretty(c).split("\n")[0] ?? "defect"
              })
              yield* Effect.logError(`Voice runtime: the agent cannot talk: ${reason}`, cause)
              yield* Effect.asVoid(Queue.offer(events, { _tag: "Failed", reason }))
            })
        })
      ))

    let agent: Option.Option<Fiber.RuntimeFiber<void>> = Option.some(yield* agentFiber(turns.opening))
    const timers = new Map<Timer, Fiber.RuntimeFiber<boolean>>()
    const stopTimer = (name: Timer) =>
      Effect.suspend(() => {
        const fiber = timers.get(name)
        timers.delete(name)
        return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
      })
    const startTimer = (name: Timer, millis: number, event: TurnEvent) =>
      Effect.gen(function*() {
        yield* stopTimer(name)
        timers.set(name, yield* Effect.fork(Effect.zipRight(Effect.sleep(millis), Queue.offer(events, event))))
      })

    let machine = initialTurnState({ detectVoicemail: settings.voicemail !== undefined })
    let ended: Extract<TurnDecision, { _tag: "End" }> | undefined

    const decide = (decision: TurnDecision): Effect.Effect<void> =>
      Effect.gen(function*() {
        switch (decision._tag) {
          case "Respond": {
            recordTurn(record, { role: "user", text: decision.text, startMs: decision.startMs, endMs: decision.endMs })
            if (audio.notify !== undefined && decision.text.trim() !== "") {
              yield* audio.notify({ _tag: "Transcript", role: "user", text: decision.text, startMs: decision.startMs, endMs: decision.endMs, interrupted: false })
            }
            yield* log.note([{ type: "rtf-user-transcription", payload: { text: decision.text, final: true } }])
            responder.gather(yield* optOut(decision.text))
            const screened = Effect.gen(function*() {
              const machineAnswered = decision.checkVoicemail && (yield* soundsLikeVoicemail({ settings, model: services.model, tokens: responder.tokens(), note: log.note }, decision.text))
              // The machine ends the call at `Voicemail`; the `AgentDone` after it changes nothing.
              if (machineAnswered) return yield* Queue.offer(events, { _tag: "Voicemail", reason: "language_model" })
              yield* turns.answer({ text: decision.text, endMs: decision.endMs, heardAtMs: decision.heardAtMs })
            })
            agent = Option.some(yield* agentFiber(screened))
            return
          }
          case "BargeIn": {
            if (Option.isNone(agent)) return
            // The provider drops what it holds first, then the reply in flight is cancelled.
            const fiber = agent.value
            agent = Option.none()
            yield* Fiber.interruptFork(fiber)
            yield* audio.clear
            yield* speaker.cleared
            const clearedAt = yield* callTime
            yield* Fiber.await(fiber)
            yield* log.note([{
              type: "rtf-interruption",
              payload: {
                speech_started_at_ms: Math.round(decision.speechStartedAtMs),
                decided_at_ms: Math.round(decision.decidedAtMs),
                cleared_at_ms: Math.round(clearedAt)
              }
            }])
            return
          }
          case "StartIdleTimer":
            return yield* startTimer("idle", settings.idleMillis, { _tag: "TimeUp", reason: "user_idle_max_duration_exceeded" })
          case "StopIdleTimer":
            return yield* stopTimer("idle")
          case "StartLongSpeechTimer":
            return yield* startTimer("longSpeech", settings.voicemail?.longSpeechMillis ?? 0, { _tag: "Voicemail", reason: "long_speech" })
          case "StopLongSpeechTimer":
            return yield* stopTimer("longSpeech")
          case "End":
            ended = decision
        }
      })

    while (ended === undefined) {
      const event = yield* Queue.take(events)
      if (event._tag === "AgentDone") agent = Option.none()
      const [next, decisions] = stepTurnTaking(machine, event)
      machine = next
      for (const decision of decisions) yield* decide(decision)
    }
    const end = ended
    if (Option.isSome(agent)) yield* Fiber.interrupt(agent.value)
    yield* stopTimer("idle")
    yield* stopTimer("longSpeech")

    if (end.voicemail !== undefined) {
      yield* log.note([{ type: "rtf-voicemail-detected", payload: { reason: end.voicemail } }])
      responder.gather({ voicemail_detected: true, voicemail_detected_by: end.voicemail })
    }
    if (end.failure !== undefined) {
      responder.gather({ error: end.failure })
      yield* log.note([{ type: "rtf-pipeline-error", payload: { error: end.failure, fatal: true } }])
    }
    // The conversation reached a transfer node: the call is handed over instead of hung up.
    const transferTo = responder.state().transfer
    // A machine's call is dispositioned as the outcome it ends with, whatever the agent had said before.
    responder.end(end.reason, end.voicemail !== undefined ? "voicemail" : undefined)
    if (end.voicemail !== undefined) yield* audio.endAsVoicemail(end.voicemail)
    else if (end.failure !== undefined) yield* (audio.endAsFailed?.(end.failure) ?? audio.hangUp)
    else if (transferTo !== undefined && end.reason === responder.state().ending) responder.gather(yield* handOver(audio, transferTo, log.note, responder.state()))
    else if (end.reason !== "user_hangup") yield* audio.hangUp

    return {
      state: responder.state(),
      record,
      startedAt,
      durationMs: yield* callTime,
      events: log.events(),
      latencies,
      tokens: responder.tokens(),
      sttSeconds: stt.seconds,
      ttsCharacters: speaker.characters(),
      toolCalls: responder.toolCalls(),
      failure: end.failure
    } satisfies SessionResult
  })
