/**
 * A FAKE speech recognizer for tests and demos where what the caller says matters more than how well
 * it is recognized: it finds utterances in the audio as a streaming vendor would (speech, then a pause
 * of `pauseMillis`) and reports each as the next line of its script, with the `Final`/`UtteranceEnd`
 * events of the real port and the audio it was given as billed seconds (`meterAudio`). Clearly not a
 * recognizer: it never listens to the words. Each call (each `transcribe`) starts its script from the
 * first line; `script` is read when the call starts, so a test can set the lines of the call it is
 * about to place.
 */
import * as Pcm from "@agentline/core/audio/Pcm"
import type { SpeechEvent, SpeechToTextService } from "@agentline/core/voice/Speech"
import { meterAudio, SpeechToText } from "@agentline/core/voice/Speech"
import { Layer, Stream } from "effect"
import { defaultVadSettings, initialEnergyVadState, stepVad } from "../session/Vad.js"

export const make = (script: () => ReadonlyArray<string>, options: { readonly pauseMillis?: number } = {}): SpeechToTextService => {
  const settings = { ...defaultVadSettings, stopMillis: options.pauseMillis ?? 300 }
  return {
    transcribe: (_format, audio) =>
      meterAudio(audio, (counted) => Stream.suspend(() => {
        const lines = script()
        let next = 0
        let vad = initialEnergyVadState
        let startedAt = 0
        return counted.pipe(
          Stream.mapConcat((frame): ReadonlyArray<SpeechEvent> => {
            const pcm = Pcm.decode(frame)
            const [state, events] = stepVad(settings, vad, pcm)
            vad = state
            return events.flatMap((event): ReadonlyArray<SpeechEvent> => {
              if (event._tag === "SpeechStarted") {
                startedAt = event.atMs
                return [{ _tag: "SpeechStarted", at: event.atMs / 1000 }]
              }
              const text = lines[next++]
              if (text === undefined) return []
              return [
                { _tag: "Final", text, endOfSpeech: true, start: startedAt / 1000, duration: (event.atMs - startedAt) / 1000 },
                { _tag: "UtteranceEnd", lastWordEnd: event.atMs / 1000 }
              ]
            })
          })
        )
      }))
  }
}

export const layer = (script: () => ReadonlyArray<string>, options: { readonly pauseMillis?: number } = {}) =>
  Layer.succeed(SpeechToText, make(script, options))
