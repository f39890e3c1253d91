/**
 * The listener: the caller's audio, frame by frame, to the recorder (the caller's track), to the
 * recognizer's input and through the voice activity detector and the endpointing machine
 * (`stepTurn`): what comes out are the turn-taking events "speech started" / "speech stopped", in call
 * time. When the caller's audio ends (they hung up), the recognizer's input is closed and `CallerGone`
 * follows.
 */
import type { CallAudioEvent } from "@agentline/core/audio/CallAudio"
import type * as Pcm from "@agentline/core/audio/Pcm"
import type { VoiceDetector } from "@agentline/core/audio/VoiceActivity"
import { Effect, Option, Queue, Stream } from "effect"
import { type CallRecord, recordCallerAudio } from "../session/CallRecord.js"
import { initialVadState, stepTurn, type VadSettings } from "../session/Vad.js"
import type { TurnEvent } from "./TurnTaking.js"

export interface ListenerOptions {
  readonly incoming: Stream.Stream<CallAudioEvent>
  readonly detector: VoiceDetector
  readonly vad: VadSettings
  readonly record: CallRecord
  readonly callTime: Effect.Effect<number>
  /** The recognizer's input: frames, then none at the end. */
  readonly recognizer: Queue.Enqueue<Option.Option<Pcm.PcmFrame>>
  /** Whether caller speech now may cut the agent's reply (asked when speech starts). */
  readonly interruptible: () => boolean
  readonly events: Queue.Enqueue<TurnEvent>
}

/** Runs until the caller's audio ends. */
export const listen = (options: ListenerOptions) =>
  Effect.gen(function*() {
    let vad = initialVadState
    yield* Stream.runForEach(options.incoming, (event) =>
      Effect.gen(function*() {
        if (event._tag !== "Audio") return
        const at = yield* options.callTime
        const frameMs = (event.frame.samples.length * 1000) / event.frame.sampleRate
        recordCallerAudio(options.record, event.frame, at - frameMs)
        yield* Queue.offer(options.recognizer, Option.some(event.frame))
        const voiced = yield* options.detector.isVoice(event.frame.samples)
        const [next, changes] = stepTurn(options.vad, vad, frameMs, voiced)
        vad = next
        // The VAD counts the audio it was given; a provider may not stream while nobody speaks, so
        // its times are turned into call time from how far behind the current frame they are.
        for (const change of changes) {
          const atMs = at - (next.atMs - change.atMs)
          yield* Queue.offer(
            options.events,
            change._tag === "SpeechStarted"
              ? { _tag: "SpeechStarted", atMs, decidedAtMs: at, interruptible: options.interruptible() }
              : { _tag: "SpeechStopped", atMs }
          )
        }
      }))
    yield* Queue.offer(options.recognizer, Option.none())
    yield* Queue.offer(options.events, { _tag: "CallerGone" })
  })
