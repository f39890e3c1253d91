/**
 * The recognizer: the caller's frames (from the listener) through the `SpeechToText` port; each final
 * transcript becomes a `Heard` event in call time, and the audio seconds the recognizer reports
 * (`Metadata`, metered for every adapter by `meterAudio`) are added to the call's usage. A recognizer
 * that fails cannot listen any more: the call fails with the reason (`Failed`).
 */
import * as Pcm from "@agentline/core/audio/Pcm"
import type { AudioFrame } from "@agentline/core/audio/AudioFormat"
import type { SpeechToTextService } from "@agentline/core/voice/Speech"
import { Chunk, Effect, Option, Queue, Stream } from "effect"
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
  // The frames that came in since the recognizer last looked, taken in one step (no stream stages of
  // our own between the queue and the port: each costs a little on every frame of every call).
  let ended = false
  const audio = Stream.repeatEffectChunkOption(Effect.suspend(() =>
    ended ? Effect.fail(Option.none()) : Effect.map(Queue.takeBetween(options.frames, 1, Number.MAX_SAFE_INTEGER), (frames) => {
      const encoded: Array<AudioFrame> = []
      for (const frame of frames) {
        if (Option.isNone(frame)) {
          ended = true
          break
        }
        encoded.push(Pcm.encode(frame.value, format))
      }
      return Chunk.unsafeFromArray(encoded)
    })
  ))
  return options.stt.transcribe(format, audio).pipe(
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
