/**
 * Cartesia text to speech over its WebSocket (`/tts/websocket`): one socket and one `context_id` per
 * reply, each sentence sent as it is ready with `continue: true` (same context = prosody kept), an
 * empty transcript with `continue: false` when the reply is complete. Audio comes back as base64
 * `chunk` messages in the call's own raw format until `done`. Closing the stream early (barge-in)
 * sends `cancel` for the context and closes the socket. The address is `AGENTLINE_CARTESIA_URL`
 * (default `wss://api.cartesia.ai`), the key `CARTESIA_API_KEY`.
 */
import { at, parseJson } from "@agentline/core/Json"
import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import { SpeechError, TextToSpeech } from "@agentline/core/voice/Speech"
import type { SpeechAudio } from "@agentline/core/voice/Speech"
import { Chunk, Config, Effect, Layer, Redacted, Schema, Stream } from "effect"
import * as Crypto from "node:crypto"
import WebSocket from "ws"

/** The API version this adapter speaks (sent as `Cartesia-Version`). */
export const CARTESIA_VERSION = "2025-04-16"

export class CartesiaError extends Schema.TaggedError<CartesiaError>()("CartesiaError", {
  message: Schema.String,
  /** The HTTP status (handshake refusal or an `error` message's `status_code`), or the close code. */
  code: Schema.optional(Schema.Number)
}) {}

export interface CartesiaOptions {
  readonly apiKey: Redacted.Redacted
  /** `wss://api.cartesia.ai` or a test server. */
  readonly url?: string
  readonly voiceId: string
  /** e.g. `sonic-2`, `sonic-turbo`. */
  readonly modelId?: string
  readonly language?: string
}

export interface CartesiaTextToSpeechService {
  /** The sentences spoken in this format, as they are generated. */
  readonly synthesize: <E>(
    format: AudioFormat,
    sentences: Stream.Stream<string, E>
  ) => Stream.Stream<SpeechAudio, CartesiaError | E>
}

const RATES = [8000, 16000, 22050, 24000, 44100, 48000]

/** Cartesia's raw `output_format` for a call format, or undefined when it has none. */
export const outputFormat = (format: AudioFormat) => {
  if (!RATES.includes(format.sampleRate)) return undefined
  const encoding = format.encoding === "mulaw"
    ? "pcm_mulaw"
    : format.encoding === "alaw"
    ? "pcm_alaw"
    : format.encoding === "l16le"
    ? "pcm_s16le"
    : undefined
  return encoding === undefined ? undefined : { container: "raw", encoding, sample_rate: format.sampleRate }
}

export const make = (options: CartesiaOptions): CartesiaTextToSpeechService => ({
  synthesize: <E>(format: AudioFormat, sentences: Stream.Stream<string, E>) =>
    Stream.asyncScoped<SpeechAudio, CartesiaError | E>((emit) =>
      Effect.gen(function*() {
        const output = outputFormat(format)
        if (output === undefined) {
          return yield* new CartesiaError({ message: `no Cartesia output format for ${format.encoding} at ${format.sampleRate} Hz` })
        }
        const contextId = Crypto.randomUUID()
        let finished = false
        const socket = yield* Effect.acquireRelease(
          Effect.sync(() =>
            new WebSocket(new URL("/tts/websocket", options.url ?? "wss://api.cartesia.ai").toString(), {
              headers: { "X-API-Key": Redacted.value(options.apiKey), "Cartesia-Version": CARTESIA_VERSION }
            })
          ),
          (socket) =>
            Effect.sync(() => {
              // Stopped before `done` (barge-in): stop the generation, then the socket.
              if (!finished && socket.readyState === WebSocket.OPEN) {
                socket.send(JSON.stringify({ context_id: contextId, cancel: true }))
                socket.close(1000)
              } else socket.terminate()
            })
        )
        socket.on("message", (data) => {
          const parsed = parseJson(data.toString())
          if (parsed === undefined) return emit.fail(new CartesiaError({ message: `not JSON: ${data.toString().slice(0, 200)}` }))
          const message = parsed.value
          const context = at(message, "context_id")
          if (context !== undefined && context !== contextId) return
          switch (at(message, "type")) {
            case "chunk": {
              const audio = at(message, "data")
              if (typeof audio === "string" && audio.length > 0) {
                emit.chunk(Chunk.of({ audio: { format, data: new Uint8Array(Buffer.from(audio, "base64")) } }))
              }
              return
            }
            case "done":
              finished = true
              return emit.end()
            case "error": {
              const code = at(message, "status_code")
              return emit.fail(
                new CartesiaError({
                  message: [at(message, "title"), at(message, "message"), at(message, "error")].filter((x) => typeof x === "string").join(": ") ||
                    "error",
                  ...(typeof code === "number" ? { code } : {})
                })
              )
            }
            default:
              return // timestamps, flush_done: not needed for playback
          }
        })
        socket.on("unexpected-response", (_request, response) => {
          const status = response.statusCode ?? 0
          emit.fail(new CartesiaError({ message: `handshake refused with HTTP ${status}`, code: status }))
          socket.terminate()
        })
        socket.on("error", (error) => emit.fail(new CartesiaError({ message: error.message })))
        socket.on("close", (code, reason) => {
          if (finished) return
          emit.fail(new CartesiaError({ message: `connection closed (${code}) before the speech was complete ${reason.toString()}`.trim(), code }))
        })
        const opened = yield* Effect.async<boolean>((resume) => {
          socket.once("open", () => resume(Effect.succeed(true)))
          socket.once("close", () => resume(Effect.succeed(false)))
        })
        if (!opened) return
        const request = (transcript: string, more: boolean) => ({
          model_id: options.modelId ?? "sonic-2",
          transcript,
          voice: { mode: "id", id: options.voiceId },
          language: options.language ?? "en",
          context_id: contextId,
          output_format: output,
          add_timestamps: false,
          continue: more,
          max_buffer_delay_ms: 0
        })
        const send = (message: unknown) =>
          Effect.sync(() => {
            if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message))
          })
        yield* sentences.pipe(
          Stream.filter((sentence) => sentence.trim().length > 0),
          Stream.runForEach((sentence) => send(request(sentence.endsWith(" ") ? sentence : `${sentence} `, true))),
          Effect.andThen(send(request("", false))),
          Effect.catchAll((error) => Effect.sync(() => emit.fail(error))),
          Effect.forkScoped
        )
      }).pipe(Effect.catchAll((error) => Effect.sync(() => emit.fail(error))))
    )
})

/** The adapter as the `TextToSpeech` port. */
export const toPort = (service: CartesiaTextToSpeechService) =>
  TextToSpeech.of({
    synthesize: (format, sentences) =>
      service.synthesize(format, sentences).pipe(
        Stream.mapError((error) =>
          error instanceof CartesiaError
            ? new SpeechError({ service: "cartesia", message: error.message, ...(error.code !== undefined ? { code: error.code } : {}) })
            : error
        )
      )
  })

export const layer = (options: CartesiaOptions) => Layer.succeed(TextToSpeech, toPort(make(options)))

/** `CARTESIA_API_KEY`, `AGENTLINE_CARTESIA_URL` (optional) and the voice, e.g. from `AGENTLINE_TTS=cartesia:<voice id>`. */
export const layerConfig = (voiceId: string, modelId?: string, options: { readonly apiKey?: Redacted.Redacted } = {}) =>
  Layer.effect(
    TextToSpeech,
    Effect.gen(function*() {
      // An organization's stored key when given, else the variable.
      const apiKey = options.apiKey ?? (yield* Config.redacted("CARTESIA_API_KEY"))
      const url = yield* Config.option(Config.string("AGENTLINE_CARTESIA_URL"))
      return toPort(make({
        apiKey,
        voiceId,
        ...(modelId !== undefined ? { modelId } : {}),
        ...(url._tag === "Some" ? { url: url.value } : {})
      }))
    })
  )
