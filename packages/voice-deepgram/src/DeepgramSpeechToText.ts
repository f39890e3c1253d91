/**
 * Deepgram live speech to text: one WebSocket per call (`/v1/listen`), the call's audio sent as binary
 * frames in its own encoding, and Deepgram's `Results` (interim and final, with `speech_final` at an
 * endpoint), `SpeechStarted`, `UtteranceEnd` and `Metadata` read back as `SpeechEvent`s. The address is
 * `AGENTLINE_DEEPGRAM_URL` (default `wss://api.deepgram.com`), the key `DEEPGRAM_API_KEY`.
 */
import { at, parseJson } from "@agentline/core/Json"
import type { AudioFormat, AudioFrame } from "@agentline/core/audio/AudioFormat"
import { meterAudio, SpeechError, SpeechToText } from "@agentline/core/voice/Speech"
import type { SpeechEvent, TranscribeOptions } from "@agentline/core/voice/Speech"
import { Chunk, Clock, Config, Effect, Layer, Redacted, Schedule, Schema, Stream } from "effect"
import WebSocket from "ws"

export class DeepgramError extends Schema.TaggedError<DeepgramError>()("DeepgramError", {
  message: Schema.String,
  /** The HTTP status of a refused handshake, or the WebSocket close code. */
  code: Schema.optional(Schema.Number)
}) {}

export interface DeepgramOptions {
  readonly apiKey: Redacted.Redacted
  /** `wss://api.deepgram.com` or a region/test server. */
  readonly url?: string
  /** e.g. `nova-3`. */
  readonly model: string
  readonly language?: string
  /** Silence (ms) that ends speech (`speech_final`); Deepgram recommends 300–500 for conversation. */
  readonly endpointingMs?: number
  /** Gap (ms) after the last word that sends `UtteranceEnd`. */
  readonly utteranceEndMs?: number
}

export interface DeepgramSpeechToTextService {
  readonly transcribe: <E>(
    format: AudioFormat,
    audio: Stream.Stream<AudioFrame, E>,
    options?: TranscribeOptions
  ) => Stream.Stream<SpeechEvent, DeepgramError | E>
}

const encodingParameter = (format: AudioFormat): string =>
  format.encoding === "mulaw" ? "mulaw" : format.encoding === "alaw" ? "alaw" : "linear16"

/** Deepgram's linear16 is little-endian: big-endian L16 is swapped on the way. */
const wireBytes = (frame: AudioFrame): Uint8Array => {
  if (frame.format.encoding !== "l16be") return frame.data
  const out = new Uint8Array(frame.data.length - (frame.data.length % 2))
  for (let i = 0; i + 1 < frame.data.length; i += 2) {
    out[i] = frame.data[i + 1]!
    out[i + 1] = frame.data[i]!
  }
  return out
}

export const listenUrl = (options: DeepgramOptions, format: AudioFormat, transcribe: TranscribeOptions = {}): string => {
  const url = new URL("/v1/listen", options.url ?? "wss://api.deepgram.com")
  const query = url.searchParams
  query.set("model", options.model)
  query.set("encoding", encodingParameter(format))
  query.set("sample_rate", String(format.sampleRate))
  query.set("channels", "1")
  query.set("interim_results", "true")
  query.set("endpointing", String(options.endpointingMs ?? 300))
  query.set("utterance_end_ms", String(options.utteranceEndMs ?? 1000))
  query.set("vad_events", "true")
  query.set("punctuate", "true")
  query.set("smart_format", "true")
  if (options.language !== undefined) query.set("language", options.language)
  // Key terms (nova-3) make the expected phrases likelier.
  for (const phrase of transcribe.phrases ?? []) query.append("keyterm", phrase)
  return url.toString()
}

/** One server message as events (none for what a conversation does not need). */
export const toEvents = (message: unknown): ReadonlyArray<SpeechEvent> => {
  const numberAt = (key: string) => Number(at(message, key) ?? 0)
  switch (at(message, "type")) {
    case "Results": {
      const transcript = at(message, "channel", "alternatives", 0, "transcript")
      const text = typeof transcript === "string" ? transcript : ""
      if (at(message, "is_final") === true) {
        return [{
          _tag: "Final",
          text,
          endOfSpeech: at(message, "speech_final") === true,
          start: numberAt("start"),
          duration: numberAt("duration")
        }]
      }
      return text.length > 0 ? [{ _tag: "Interim", text }] : []
    }
    case "SpeechStarted":
      return [{ _tag: "SpeechStarted", at: numberAt("timestamp") }]
    case "UtteranceEnd":
      return [{ _tag: "UtteranceEnd", lastWordEnd: numberAt("last_word_end") }]
    case "Metadata":
      return [{ _tag: "Metadata", audioSeconds: numberAt("duration") }]
    default:
      return []
  }
}

/**
 * Deepgram bills the audio streamed to it: the audio given is counted as `Metadata` as the results come
 * (`meterAudio`, before each final and at the end), in place of Deepgram's own `Metadata`, which only
 * comes at the close — after a call's end when the caller hung up.
 */
export const make = (options: DeepgramOptions): DeepgramSpeechToTextService => ({
  transcribe: <E>(format: AudioFormat, audio: Stream.Stream<AudioFrame, E>, transcribe: TranscribeOptions = {}) =>
    meterAudio(audio, (counted) => listen(options, format, counted, transcribe))
})

const listen = <E>(options: DeepgramOptions, format: AudioFormat, audio: Stream.Stream<AudioFrame, E>, transcribe: TranscribeOptions) =>
    Stream.asyncScoped<SpeechEvent, DeepgramError | E>((emit) =>
      Effect.gen(function*() {
        const socket = yield* Effect.acquireRelease(
          Effect.sync(() =>
            new WebSocket(listenUrl(options, format, transcribe), {
              headers: { Authorization: `Token ${Redacted.value(options.apiKey)}` }
            })
          ),
          (socket) => Effect.sync(() => socket.terminate())
        )
        let lastSent = yield* Clock.currentTimeMillis
        socket.on("message", (data, isBinary) => {
          if (isBinary) return
          const parsed = parseJson(data.toString())
          if (parsed === undefined) return emit.fail(new DeepgramError({ message: `not JSON: ${data.toString().slice(0, 200)}` }))
          const message = parsed.value
          if (at(message, "type") === "Error") {
            return emit.fail(new DeepgramError({ message: String(at(message, "description") ?? at(message, "message") ?? "error") }))
          }
          const events = toEvents(message)
          if (events.length > 0) emit.chunk(Chunk.fromIterable(events))
        })
        socket.on("unexpected-response", (_request, response) => {
          const status = response.statusCode ?? 0
          emit.fail(new DeepgramError({ message: `handshake refused with HTTP ${status}`, code: status }))
          socket.terminate()
        })
        socket.on("error", (error) => emit.fail(new DeepgramError({ message: error.message })))
        socket.on("close", (code, reason) => {
          // 1000: Deepgram closes normally after CloseStream; anything else (1006 dropped, 1008
          // DATA-0000, 1011 NET-0001) loses what was still to come.
          if (code === 1000) emit.end()
          else emit.fail(new DeepgramError({ message: `connection closed (${code}) ${reason.toString()}`.trim(), code }))
        })
        const opened = yield* Effect.async<boolean>((resume) => {
          socket.once("open", () => resume(Effect.succeed(true)))
          socket.once("close", () => resume(Effect.succeed(false)))
        })
        if (!opened) return
        const send = (data: Uint8Array | string) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.sync(() => {
              if (socket.readyState === WebSocket.OPEN) {
                socket.send(data)
                lastSent = now
              }
            }))
        // Deepgram closes a socket that gets nothing for ~10 s; KeepAlive when the audio pauses.
        yield* Effect.forkScoped(Effect.repeat(
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            now - lastSent >= 4000 ? send(JSON.stringify({ type: "KeepAlive" })) : Effect.void),
          Schedule.spaced("1 second")
        ))
        yield* audio.pipe(
          Stream.runForEach((frame) => send(wireBytes(frame))),
          Effect.andThen(send(JSON.stringify({ type: "CloseStream" }))),
          Effect.catchAll((error) => Effect.sync(() => emit.fail(error))),
          Effect.forkScoped
        )
      })
    )

/** The adapter as the `SpeechToText` port. */
export const toPort = (service: DeepgramSpeechToTextService) =>
  SpeechToText.of({
    transcribe: (format, audio, options) =>
      service.transcribe(format, audio, options).pipe(
        Stream.mapError((error) =>
          error instanceof DeepgramError
            ? new SpeechError({ service: "deepgram", message: error.message, ...(error.code !== undefined ? { code: error.code } : {}) })
            : error
        )
      )
  })

export const layer = (options: DeepgramOptions) => Layer.succeed(SpeechToText, toPort(make(options)))

/**
 * `DEEPGRAM_API_KEY`, `AGENTLINE_DEEPGRAM_URL` (optional) and the model, e.g. from `AGENTLINE_STT=deepgram:nova-3`;
 * `apiKey` instead of the variable when given (an organization's stored key).
 */
export const layerConfig = (model: string, options: { readonly apiKey?: Redacted.Redacted } = {}) =>
  Layer.effect(
    SpeechToText,
    Effect.gen(function*() {
      const apiKey = options.apiKey ?? (yield* Config.redacted("DEEPGRAM_API_KEY"))
      const url = yield* Config.option(Config.string("AGENTLINE_DEEPGRAM_URL"))
      return toPort(make({ apiKey, model, ...(url._tag === "Some" ? { url: url.value } : {}) }))
    })
  )
