/**
 * The speech ports and what they produce, independent of the vendor: the events a speech-to-text
 * stream yields and the audio a text-to-speech stream yields. Every adapter package (`voice-local`, `voice-deepgram`, `voice-openai`,
 * `voice-elevenlabs`, `voice-cartesia`) maps its vendor's wire messages to them.
 */
import { Context, Schema, Stream } from "effect"
import type { AudioFormat, AudioFrame } from "../audio/AudioFormat.js"

/** What a speech-to-text stream tells about the caller's audio. */
export type SpeechEvent =
  /** A guess at the words so far; later events replace it. */
  | { readonly _tag: "Interim"; readonly text: string }
  /**
   * Words that will not change. `endOfSpeech` when the recognizer also found the end of the
   * caller's speech after them; `start`/`duration` in seconds from the start of the audio.
   */
  | {
    readonly _tag: "Final"
    readonly text: string
    readonly endOfSpeech: boolean
    readonly start: number
    readonly duration: number
  }
  /** The recognizer heard speech begin (seconds from the start of the audio). */
  | { readonly _tag: "SpeechStarted"; readonly at: number }
  /** A gap after the last word: the utterance is over. */
  | { readonly _tag: "UtteranceEnd"; readonly lastWordEnd: number }
  /**
   * Seconds of audio the service processed (what it bills) since the previous `Metadata`: the runtime
   * adds them up. Reported as the recognition goes (`meterAudio`), not only at the end, so a call that
   * ends before the recognizer's stream does still counts what was heard.
   */
  | { readonly _tag: "Metadata"; readonly audioSeconds: number }

/** When each character of the spoken text starts in the audio of one chunk, and how long it lasts. */
export interface Alignment {
  readonly chars: ReadonlyArray<string>
  readonly startMs: ReadonlyArray<number>
  readonly durationMs: ReadonlyArray<number>
}

/** Audio of synthesized speech, in order; `alignment` when the service reports timings. */
export interface SpeechAudio {
  readonly audio: AudioFrame
  readonly alignment?: Alignment
}

/** A speech service failed: refused, rate limited, dropped, or not installed. */
export class SpeechError extends Schema.TaggedError<SpeechError>()("SpeechError", {
  /** Which service, e.g. `deepgram`, `elevenlabs`, `local`. */
  service: Schema.String,
  message: Schema.String,
  /** An HTTP status or WebSocket close code when there is one (429: rate limited). */
  code: Schema.optional(Schema.Number)
}) {}

export interface TranscribeOptions {
  /** Phrases the caller is expected to say: a hint for vendors, a grammar for the offline recognizer. */
  readonly phrases?: ReadonlyArray<string>
}

/** Seconds of audio in a frame of its own format (G.711: one byte a sample; L16: two). */
export const frameSeconds = (frame: AudioFrame): number =>
  frame.data.length / (frame.format.encoding === "mulaw" || frame.format.encoding === "alaw" ? 1 : 2) / frame.format.sampleRate

/**
 * A recognizer's events with the audio it was given counted as `Metadata`: the seconds given since the
 * last report just before each `Final`, and the rest when the stream ends. The recognizer knows its
 * audio, so every adapter that is given the whole call (the offline recognizer, Deepgram's live socket,
 * the scripted test recognizer) reports usage the same way; a recognizer's own `Metadata` (Deepgram's, at
 * the close, for the same audio) is replaced by the count. Each `Metadata` is rounded to the
 * microsecond, so reports add up to the total without floating-point crumbs.
 */
export const meterAudio = <E, E2, R>(
  audio: Stream.Stream<AudioFrame, E>,
  recognize: (audio: Stream.Stream<AudioFrame, E>) => Stream.Stream<SpeechEvent, E2, R>
): Stream.Stream<SpeechEvent, E2, R> =>
  Stream.suspend(() => {
    let given = 0
    let reported = 0
    const report = (): ReadonlyArray<SpeechEvent> => {
      const total = Math.round(given * 1_000_000) / 1_000_000
      const seconds = Math.round((total - reported) * 1_000_000) / 1_000_000
      reported = total
      return seconds > 0 ? [{ _tag: "Metadata", audioSeconds: seconds }] : []
    }
    const counted = Stream.map(audio, (frame) => {
      given += frameSeconds(frame)
      return frame
    })
    return recognize(counted).pipe(
      Stream.mapConcat((event): ReadonlyArray<SpeechEvent> =>
        event._tag === "Metadata" ? [] : event._tag === "Final" ? [...report(), event] : [event]
      ),
      Stream.concat(Stream.suspend(() => Stream.fromIterable(report())))
    )
  })

/** The speech-to-text port: live recognition of one call's audio. */
export interface SpeechToTextService {
  readonly transcribe: <E>(
    format: AudioFormat,
    audio: Stream.Stream<AudioFrame, E>,
    options?: TranscribeOptions
  ) => Stream.Stream<SpeechEvent, SpeechError | E>
}

export class SpeechToText extends Context.Tag("@agentline/core/voice/SpeechToText")<SpeechToText, SpeechToTextService>() {}

/** The text-to-speech port: a reply's sentences (sent as they are ready) spoken in the call's format. */
export interface TextToSpeechService {
  readonly synthesize: <E>(
    format: AudioFormat,
    sentences: Stream.Stream<string, E>
  ) => Stream.Stream<SpeechAudio, SpeechError | E>
}

export class TextToSpeech extends Context.Tag("@agentline/core/voice/TextToSpeech")<TextToSpeech, TextToSpeechService>() {}
