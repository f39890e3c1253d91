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
import type { AudioFormat, AudioFrame } from "@agentline/core/audio/AudioFormat"
import { SpeechError, SpeechToText, TextToSpeech } from "@agentline/core/voice/Speech"
import * as Pcm from "@agentline/core/audio/Pcm"
import { defaultEnergySettings, initialEnergyState, initialVadState, stepEnergy, stepTurn, type VadSettings } from "@agentline/core/audio/VoiceActivity"
import type { SpeechAudio, SpeechEvent } from "@agentline/core/voice/Speech"
import { durationMs } from "@agentline/core/audio/AudioFormat"
import { toWav } from "@agentline/core/audio/WavAudio"
import { AiError } from "@effect/ai"
import { OpenAiClient } from "@effect/ai-openai"
import { HttpClientRequest } from "@effect/platform"
import { Chunk, Effect, Layer, Schedule, Schema, Stream } from "effect"

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
        const converter = Pcm.makeConverter(OPENAI_PCM, format)
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

/** An `AiError` as the speech ports' error (with the HTTP status when there is one); anything else as it is. */
const toSpeechError = <E>(error: E | AiError.AiError): E | SpeechError =>
  AiError.isAiError(error)
    ? new SpeechError({
      service: "openai",
      message: error.message,
      ...(error._tag === "HttpResponseError" ? { code: error.response.status } : {})
    })
    : error

/** OpenAI speech as the `TextToSpeech` port (needs an `OpenAiClient`). */
export const speechLayer = (options: OpenAiSpeechOptions) =>
  Layer.effect(
    TextToSpeech,
    Effect.map(makeSpeech(options), (speech) =>
      TextToSpeech.of({
        synthesize: (format, sentences) =>
          speech.synthesize(format, sentences).pipe(Stream.mapError(toSpeechError))
      }))
  )

/** How the transcription port finds utterances: the energy detector's turns, with some audio before each. */
export interface UtteranceSettings extends VadSettings {
  /** Audio kept from before the detected start, so the first syllable is not cut. */
  readonly preRollMillis: number
}

export const defaultUtteranceSettings: UtteranceSettings = { startMillis: 80, stopMillis: 500, preRollMillis: 200 }

export type Found =
  | { readonly _tag: "Started"; readonly atMs: number }
  | { readonly _tag: "Utterance"; readonly frames: ReadonlyArray<AudioFrame>; readonly startMs: number; readonly endMs: number }

/**
 * Utterances in a call's audio, pure over the frames: each one's frames (with the pre-roll) once the
 * energy detector has heard `stopMillis` of silence after it; a started utterance is also given at the
 * end of the audio.
 */
export const findUtterances = <E>(
  audio: Stream.Stream<AudioFrame, E>,
  settings: UtteranceSettings = defaultUtteranceSettings
): Stream.Stream<Found, E> =>
  Stream.suspend(() => {
    let energy = initialEnergyState
    let turn = initialVadState
    let preRoll: Array<{ readonly frame: AudioFrame; readonly ms: number }> = []
    let current: { frames: Array<AudioFrame>; startMs: number } | undefined
    const found = audio.pipe(Stream.mapConcat((frame): ReadonlyArray<Found> => {
      const pcm = Pcm.decode(frame)
      const ms = (pcm.samples.length * 1000) / pcm.sampleRate
      const [nextEnergy, voiced] = stepEnergy(defaultEnergySettings, energy, pcm.samples)
      energy = nextEnergy
      const [nextTurn, events] = stepTurn(settings, turn, ms, voiced)
      turn = nextTurn
      if (current !== undefined) current.frames.push(frame)
      else {
        preRoll.push({ frame, ms })
        let kept = preRoll.reduce((n, p) => n + p.ms, 0)
        // Enough frames to cover the start's run of voice and the pre-roll before it.
        while (preRoll.length > 1 && kept - preRoll[0]!.ms >= settings.preRollMillis + settings.startMillis) kept -= preRoll.shift()!.ms
      }
      const out: Array<Found> = []
      for (const event of events) {
        if (event._tag === "SpeechStarted") {
          current = { frames: preRoll.map((p) => p.frame), startMs: Math.max(0, event.atMs - settings.preRollMillis) }
          preRoll = []
          out.push({ _tag: "Started", atMs: event.atMs })
        } else if (current !== undefined) {
          out.push({ _tag: "Utterance", frames: current.frames, startMs: current.startMs, endMs: event.atMs })
          current = undefined
        }
      }
      return out
    }))
    return Stream.concat(
      found,
      Stream.suspend(() =>
        current !== undefined
          ? Stream.succeed<Found>({ _tag: "Utterance", frames: current.frames, startMs: current.startMs, endMs: turn.atMs })
          : Stream.empty as Stream.Stream<Found>
      )
    )
  })

/**
 * OpenAI transcription (`/audio/transcriptions`, e.g. `gpt-4o-mini-transcribe`) as the `SpeechToText`
 * port. The endpoint takes whole utterances, not a live stream, so the port finds them in the call's
 * audio itself (`findUtterances`) and sends each as a WAV when it ends: a final comes the request's
 * time after the utterance's `stopMillis` of silence (OpenAI's P99 is about 2 s; Deepgram's live
 * socket about 0.35 s — the voice runtime reference's table). Up to three requests run at once; the
 * events stay in the audio's order. A rate-limited or failed request is retried twice.
 */
export const transcriptionLayer = (options: OpenAiTranscriptionOptions = {}, settings: UtteranceSettings = defaultUtteranceSettings) =>
  Layer.effect(
    SpeechToText,
    Effect.map(makeTranscription(options), (transcription) =>
      SpeechToText.of({
        transcribe: (_format, audio) =>
          findUtterances(audio, settings).pipe(
            Stream.mapEffect((found) =>
              found._tag === "Started"
                ? Effect.succeed<ReadonlyArray<SpeechEvent>>([{ _tag: "SpeechStarted", at: found.atMs / 1000 }])
                : Stream.runCollect(transcription.transcribeUtterance(Stream.fromIterable(found.frames))).pipe(
                  Effect.retry({ times: 2, schedule: Schedule.exponential("200 millis") }),
                  Effect.map((events) =>
                    Chunk.toReadonlyArray(events).flatMap((event): ReadonlyArray<SpeechEvent> =>
                      event._tag === "Final"
                        ? [
                          { ...event, start: found.startMs / 1000, duration: (found.endMs - found.startMs) / 1000 },
                          { _tag: "UtteranceEnd", lastWordEnd: found.endMs / 1000 }
                        ]
                        : [event]
                    )
                  )
                ), { concurrency: 3 }),
            Stream.flattenIterables,
            Stream.mapError(toSpeechError)
          )
      }))
  )
