/**
 * A FAKE speech synthesizer for tests of the runtime's stages: each sentence becomes `msPerChar`
 * milliseconds of a loud tone per character, sent as soon as the sentence arrives. It records each
 * synthesis (one per stream: the sentences it was given), and fails like a missing engine when told to.
 */
import * as Pcm from "@agentline/core/audio/Pcm"
import { SpeechError, type TextToSpeechService } from "@agentline/core/voice/Speech"
import { Effect, Stream } from "effect"

/** `millis` of a 440 Hz tone at the rate (loud enough for any voice detector). */
export const tone = (sampleRate: number, millis: number): Int16Array => {
  const samples = new Int16Array(Math.round((sampleRate * millis) / 1000))
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate))
  return samples
}

export const synthesizer = (options: { readonly msPerChar?: number; readonly failWith?: string } = {}) => {
  const syntheses: Array<Array<string>> = []
  const service: TextToSpeechService = {
    synthesize: (format, sentences) =>
      Stream.suspend(() => {
        const taken: Array<string> = []
        syntheses.push(taken)
        return sentences.pipe(
          Stream.mapEffect((text) => {
            taken.push(text)
            if (options.failWith !== undefined) return Effect.fail(new SpeechError({ service: "fake", message: options.failWith }))
            const samples = tone(format.sampleRate, text.length * (options.msPerChar ?? 10))
            return Effect.succeed({ audio: Pcm.encode({ sampleRate: format.sampleRate, samples }, format) })
          })
        )
      })
  }
  return { service, syntheses } as const
}
