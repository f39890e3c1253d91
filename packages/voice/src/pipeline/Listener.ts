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

/**
 * Runs until the caller's audio ends. Frames are taken as they came in together (one at a time on an
 * idle server, more when the event loop was busy): the time is read once for them, each frame recorded
 * on the call's timeline by the audio that followed it, and they go to the recognizer in one offer.
 */
export const listen = (options: ListenerOptions) =>
  Effect.gen(function*() {
    let vad = initialVadState
    yield* Stream.runForEachChunk(options.incoming, (chunk) =>
      Effect.gen(function*() {
        const now = yield* options.callTime
        const frames: Array<Option.Option<Pcm.PcmFrame>> = []
        let pendingMs = 0
        for (const event of chunk) if (event._tag === "Audio") pendingMs += frameMillis(event.frame)
        for (const event of chunk) {
          if (event._tag !== "Audio") continue
          const frameMs = frameMillis(event.frame)
          pendingMs -= frameMs
          // The recording places the frame by the audio that followed it (frames that came in together
          // were spoken one after the other); turn-taking times are when the frames were seen, as the
          // decisions are made now.
          recordCallerAudio(options.record, event.frame, now - pendingMs - frameMs)
          const at = now
          frames.push(Option.some(event.frame))
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
        }
        if (frames.length > 0) yield* Queue.offerAll(options.recognizer, frames)
      }))
    yield* Queue.offer(options.recognizer, Option.none())
    yield* Queue.offer(options.events, { _tag: "CallerGone" })
  })

const frameMillis = (frame: Pcm.PcmFrame) => (frame.samples.length * 1000) / frame.sampleRate
