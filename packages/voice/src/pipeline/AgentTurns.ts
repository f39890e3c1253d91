/**
 * The agent's side of a turn, joining the responder (text out) to the speaker (audio out): the
 * opening (delayed start, greeting, or the model first), and each answer. A turn's transcript entry is
 * what the caller heard of it (cut short on barge-in), and its latencies go to the turn's span and the
 * metrics (`TurnTelemetry.ts`).
 */
import type { CallNotice } from "@agentline/core/audio/CallAudio"
import type { PlayableRecording } from "@agentline/core/recordings/Recordings"
import type { SpeechError } from "@agentline/core/voice/Speech"
import { Effect, Either, Exit, Option } from "effect"
import { pipelineError } from "../graph/FeedbackEvents.js"
import type { Utterance } from "../graph/Prompt.js"
import { type CallRecord, recordTurn } from "../session/CallRecord.js"
import { recordStage, turnSpan } from "../TurnTelemetry.js"
import { NoLanguageModel, type ReplySink, type Responder } from "./Responder.js"
import type { RunEvent } from "./RunEvents.js"
import { type Reply, type Speaker, untilPlayed } from "./Speaker.js"

export interface AgentTurnsOptions {
  readonly responder: Responder
  readonly speaker: Speaker
  readonly record: CallRecord
  readonly callTime: Effect.Effect<number>
  /** A recording by id, or why it cannot be played. */
  readonly playable: (recordingId: string) => Effect.Effect<Either.Either<PlayableRecording, string>>
  readonly note: (events: ReadonlyArray<RunEvent>) => Effect.Effect<void>
  /** Milliseconds from the caller's end of speech to the first audio of each answer. */
  readonly latencies: Array<number>
  /** Told each agent line and latency as they are recorded (`CallAudio.notify`). */
  readonly notify?: ((notice: CallNotice) => Effect.Effect<void>) | undefined
}

/** The caller's turn an answer answers: when their speech ended and when their words were recognized. */
export interface CallerTurn {
  readonly text: string
  readonly endMs: number
  readonly heardAtMs: number
}

export const makeAgentTurns = (options: AgentTurnsOptions) => {
  const { callTime, note, record, responder, speaker } = options
  const notify = (notice: CallNotice) => options.notify?.(notice) ?? Effect.void

  /**
   * Says an utterance outside the model (greeting, transition speech, a tool's waiting message). A
   * recording that cannot be played is logged in the run; its text stands in when there is one.
   */
  const say = (reply: Reply) => (utterance: Utterance): Effect.Effect<void, SpeechError> =>
    Effect.gen(function*() {
      if (utterance._tag === "Text") return yield* reply.text(utterance.text)
      const recording = yield* options.playable(utterance.recordingId)
      if (Either.isRight(recording)) return yield* reply.recording(recording.right.transcript, recording.right.audio)
      const instead = utterance.fallbackText !== undefined ? "the text is said instead" : "nothing is said instead"
      yield* Effect.logWarning(`Voice runtime: ${recording.left}; ${instead}`)
      yield* note([pipelineError(`${recording.left}; ${instead}`, false)])
      if (utterance.fallbackText !== undefined) yield* reply.text(utterance.fallbackText)
    })

  /** The reply's entry in the transcript: what was heard of it, until it ended or was cut. */
  const recordReply = (reply: Reply, startedAtMs: number, interrupted: boolean) =>
    Effect.gen(function*() {
      const text = reply.played()
      if (text === "") return
      const startMs = reply.firstFrameAtMs() ?? startedAtMs
      const endMs = interrupted ? yield* callTime : yield* speaker.drainedAt
      recordTurn(record, { role: "assistant", text, startMs, endMs, ...(interrupted ? { interrupted } : {}) })
      yield* notify({ _tag: "Transcript", role: "assistant", text, startMs, endMs, interrupted })
    })

  /**
   * `body` speaking into a new reply; the reply is recorded however it ends (and given to `after`),
   * then played to the end.
   */
  const speaking = <E>(body: (reply: Reply) => Effect.Effect<void, E>, after: (reply: Reply) => void = () => {}) =>
    Effect.scoped(Effect.gen(function*() {
      const reply = yield* speaker.reply
      const startedAt = yield* callTime
      yield* Effect.zipRight(body(reply), reply.finish).pipe(
        Effect.onExit((exit) => Effect.zipRight(recordReply(reply, startedAt, Exit.isInterrupted(exit)), Effect.sync(() => after(reply))))
      )
      yield* untilPlayed(speaker, callTime)
      return reply
    }))

  const sink = (reply: Reply, firstToken: Effect.Effect<void>): ReplySink<SpeechError> => ({
    text: reply.text,
    say: say(reply),
    firstToken
  })

  /** The opening: delayed start, greeting (kept in the model's history as heard); without one the model speaks first. */
  const opening = Effect.gen(function*() {
    const { delaySeconds, greeting } = responder.opening
    if (delaySeconds > 0) yield* Effect.sleep(delaySeconds * 1000)
    if (greeting === undefined) {
      return yield* speaking((reply) => responder.respond(undefined, sink(reply, Effect.void)))
    }
    yield* speaking((reply) => say(reply)(greeting), (reply) => responder.said(reply.played()))
    if (Option.isNone(responder.model)) return yield* new NoLanguageModel()
  })

  /** The agent's answer to the caller's turn, as one span with its latencies. */
  const answer = (turn: CallerTurn) =>
    Effect.gen(function*() {
      yield* recordStage("end_of_speech", Math.max(0, (yield* callTime) - turn.endMs))
      yield* recordStage("recognition", Math.max(0, turn.heardAtMs - turn.endMs))
      let tokened = false
      // The turn's first token (a turn may take several replies: tool calls, the goodbye).
      const firstToken = Effect.suspend(() => {
        if (tokened) return Effect.void
        tokened = true
        return Effect.flatMap(callTime, (now) => recordStage("first_token", Math.max(0, now - turn.endMs)))
      })
      const reply = yield* speaking((r) => responder.respond(turn.text, sink(r, firstToken)))
      const first = reply.firstFrameAtMs()
      if (first !== undefined) {
        options.latencies.push(Math.round(first - turn.endMs))
        yield* notify({ _tag: "Latency", ms: Math.round(first - turn.endMs) })
        yield* recordStage("first_audio", Math.max(0, first - turn.endMs))
      }
    }).pipe(turnSpan({ node: responder.state().node.id }))

  return { opening, answer } as const
}
