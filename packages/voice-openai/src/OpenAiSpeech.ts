/**
 * OpenAI speech (`POST {base}/audio/speech`) and transcription (`POST {base}/audio/transcriptions`),
 * both read as server-sent events over `OpenAiClient`'s transport (base URL, key, HTTP errors):
 * - speech with `stream_format: "sse"` and `response_format: "pcm"` (24 kHz 16-bit little-endian),
 *   converted as it arrives to the call's format; one request per sentence.
 * - transcription of one utterance (the call's audio wrapped in a WAV file) with `stream: true`:
 *   `transcript.text.delta` events become `Interim`s, `transcript.text.done` the `Final`.
 * `tts-1` and `whisper-1` do not stream this way; the defaults are `gpt-4o-mini-tts` and
 * `gpt-4o-mini-transcribe`.
 */
import type { AudioFormat, AudioFrame } from "@agentline/core/telephony/Media"
import { SpeechError, TextToSpeech } from "@agentline/core/voice/Speech"
import type { SpeechAudio, SpeechEvent } from "@agentline/core/voice/Speech"
import { durationMs, makeConverter, toWav } from "@agentline/voice-local/Audio"
import { AiError } from "@effect/ai"
import { OpenAiClient } from "@effect/ai-openai"
import { HttpClientRequest } from "@effect/platform"
import { Chunk, Effect, Layer, Schema, Stream } from "effect"

/** What OpenAI's `pcm` response format is. */
export const OPENAI_PCM: AudioFormat = { encoding: "l16le", sampleRate: 24000 }

/** Ends the stream with an error when `last` never came: a body closed early is not a complete answer. */
const untilLast = <A extends { readonly type: string }>(last: string, method: string) =>
<E, R>(events: Stream.Stream<A, E, R>): Stream.Stream<A, E | AiError.AiError, R> =>
  Stream.suspend(() => {
    let seen = false
    return events.pipe(
      Stream.takeUntil((event) => event.type === last),
      Stream.tap((event) => Effect.sync(() => event.type === last && (seen = true))),
      Stream.concat(Stream.fromEffect(Effect.suspend(() =>
        seen
          ? Effect.void
          : Effect.fail(new AiError.MalformedOutput({ module: "OpenAiSpeech", method, description: `the stream ended before ${last}` }))
      )).pipe(Stream.drain))
    )
  })

const SpeechEventSchema = Schema.Union(
  Schema.Struct({ type: Schema.Literal("speech.audio.delta"), audio: Schema.String }),
  Schema.Struct({ type: Schema.Literal("speech.audio.done"), usage: Schema.optional(Schema.Unknown) })
)

const TranscriptEventSchema = Schema.Union(
  Schema.Struct({ type: Schema.Literal("transcript.text.delta"), delta: Schema.String }),
  Schema.Struct({ type: Schema.Literal("transcript.text.done"), text: Schema.String, usage: Schema.optional(Schema.Unknown) })
)

export interface OpenAiSpeechOptions {
  /** e.g. `alloy`, `marin`. */
  readonly voice: string
  readonly model?: string
  /** Tone and style for `gpt-4o-mini-tts`. */
  readonly instructions?: string
}

export interface OpenAiTranscriptionOptions {
  readonly model?: string
  /** ISO-639-1, e.g. `en`. */
  readonly language?: string
}

export const makeSpeech = (options: OpenAiSpeechOptions) =>
  Effect.map(OpenAiClient.OpenAiClient, (client) => ({
    /** The sentences spoken in this format, each requested when it arrives. */
    synthesize: <E>(format: AudioFormat, sentences: Stream.Stream<string, E>): Stream.Stream<SpeechAudio, AiError.AiError | E> =>
      Stream.suspend(() => {
        const converter = makeConverter(OPENAI_PCM, format)
        return sentences.pipe(
          Stream.filter((sentence) => sentence.trim().length > 0),
          Stream.flatMap((input) =>
            client.streamRequest(
              HttpClientRequest.post("/audio/speech").pipe(HttpClientRequest.bodyUnsafeJson({
                model: options.model ?? "gpt-4o-mini-tts",
                input,
                voice: options.voice,
                response_format: "pcm",
                stream_format: "sse",
                ...(options.instructions !== undefined ? { instructions: options.instructions } : {})
              })),
              SpeechEventSchema
            ).pipe(untilLast("speech.audio.done", "synthesize"))
          ),
          Stream.mapConcat((event) => {
            if (event.type !== "speech.audio.delta") return []
            const data = converter.push(new Uint8Array(Buffer.from(event.audio, "base64")))
            return data.length > 0 ? [{ audio: { format, data } }] : []
          })
        )
      })
  }))

export const makeTranscription = (options: OpenAiTranscriptionOptions = {}) =>
  Effect.map(OpenAiClient.OpenAiClient, (client) => ({
    /** One utterance's audio (ended by the runtime's turn detection) as interim and final text. */
    transcribeUtterance: <E>(audio: Stream.Stream<AudioFrame, E>): Stream.Stream<SpeechEvent, AiError.AiError | E> =>
      Stream.unwrap(Effect.gen(function*() {
        const frames = Chunk.toReadonlyArray(yield* Stream.runCollect(audio))
        if (frames.length === 0) return Stream.empty
        const format = frames[0]!.format
        const bytes = new Uint8Array(frames.reduce((n, f) => n + f.data.length, 0))
        let offset = 0
        for (const frame of frames) {
          bytes.set(frame.data, offset)
          offset += frame.data.length
        }
        const form = new FormData()
        form.append("file", new Blob([Buffer.from(toWav(format, bytes))], { type: "audio/wav" }), "utterance.wav")
        form.append("model", options.model ?? "gpt-4o-mini-transcribe")
        form.append("response_format", "json")
        form.append("stream", "true")
        if (options.language !== undefined) form.append("language", options.language)
        const seconds = durationMs(format, bytes.length) / 1000
        return client.streamRequest(
          HttpClientRequest.post("/audio/transcriptions").pipe(HttpClientRequest.bodyFormData(form)),
          TranscriptEventSchema
        ).pipe(
          untilLast("transcript.text.done", "transcribeUtterance"),
          Stream.mapConcat((event): ReadonlyArray<SpeechEvent> =>
            event.type === "transcript.text.delta"
              ? [{ _tag: "Interim", text: event.delta }]
              : [
                { _tag: "Final", text: event.text, endOfSpeech: true, start: 0, duration: seconds },
                { _tag: "Metadata", audioSeconds: seconds }
              ]
          )
        )
      }))
  }))

/** OpenAI speech as the `TextToSpeech` port (needs an `OpenAiClient`). */
export const speechLayer = (options: OpenAiSpeechOptions) =>
  Layer.effect(
    TextToSpeech,
    Effect.map(makeSpeech(options), (speech) =>
      TextToSpeech.of({
        synthesize: (format, sentences) =>
          speech.synthesize(format, sentences).pipe(
            Stream.mapError((error) =>
              AiError.isAiError(error)
                ? new SpeechError({
                  service: "openai",
                  message: error.message,
                  ...(error._tag === "HttpResponseError" ? { code: error.response.status } : {})
                })
                : error
            )
          )
      }))
  )
