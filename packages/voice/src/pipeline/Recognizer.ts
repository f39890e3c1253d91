/**
 * The recognizer: the caller's frames (from the listener) through the `SpeechToText` port; each final
 * transcript becomes a `Heard` event in call time, and the audio seconds the recognizer reports
 * (`Metadata`, metered for every adapter by `meterAudio`) are added to the call's usage. A recognizer
 * that fails cannot listen any more: the call fails with the reason (`Failed`).
 */
import * as Pcm from "@agentline/core/audio/Pcm"
import type { SpeechToTextService } from "@agentline/core/voice/Speech"
import { Effect, Option, Queue, Stream } from "effect"
import type { TurnEvent } from "./TurnTaking.js"

export interface RecognizerOptions {
  readonly stt: SpeechToTextService
  readonly sampleRate: number
  readonly frames: Queue.Dequeue<Option.Option<Pcm.PcmFrame>>
  readonly callTime: Effect.Effect<number>
  readonly events: Queue.Enqueue<TurnEvent>
  /** Audio seconds recognized, as the recognizer reports them. */
  readonly usage: { seconds: number }
}

/** Runs until the frames end (or the recognizer fails: then a `Failed` event). */
export const recognize = (options: RecognizerOptions) => {
  const format = { encoding: "l16le" as const, sampleRate: options.sampleRate }
  return Stream.fromQueue(options.frames).pipe(
    Stream.takeWhile(Option.isSome),
    Stream.map((frame) => Pcm.encode(frame.value, format)),
    (frames) => options.stt.transcribe(format, frames),
    Stream.runForEach((event) =>
      Effect.gen(function*() {
        if (event._tag === "Final" && event.text.trim() !== "") {
          yield* Queue.offer(options.events, { _tag: "Heard", text: event.text.trim(), atMs: yield* options.callTime })
        }
        if (event._tag === "Metadata") options.usage.seconds += event.audioSeconds
      })),
    Effect.catchAll((error) => Queue.offer(options.events, { _tag: "Failed", reason: `speech recognition failed: ${error.message}` }))
  )
}
