/**
 * ElevenLabs text to speech over its input-streaming WebSocket
 * (`/v1/text-to-speech/{voice_id}/stream-input`): one socket per reply, each sentence sent as it is
 * ready with `flush: true` (without it nothing is spoken before 120 characters), `{"text": ""}` when
 * the reply is complete. Audio comes back base64 in the call's own format (`ulaw_8000`, `pcm_16000`,
 * ...) with per-character alignment, read as `SpeechAudio`. Closing the stream early (barge-in)
 * closes the socket, which stops the generation. The address is `AGENTLINE_ELEVENLABS_URL` (default
 * `wss://api.elevenlabs.io`), the key `ELEVENLABS_API_KEY`.
 */
import { at, parseJson } from "@agentline/core/Json"
import type { AudioFormat } from "@agentline/core/audio/AudioFormat"
import { SpeechError, TextToSpeech } from "@agentline/core/voice/Speech"
import type { Alignment, SpeechAudio } from "@agentline/core/voice/Speech"
import { Chunk, Config, Effect, Layer, Redacted, Schema, Stream } from "effect"
import WebSocket from "ws"

export class ElevenLabsError extends Schema.TaggedError<ElevenLabsError>()("ElevenLabsError", {
  message: Schema.String,
  /** The HTTP status of a refused handshake (401, 429, ...), or the WebSocket close code. */
  code: Schema.optional(Schema.Number)
}) {}

export interface ElevenLabsOptions {
  readonly apiKey: Redacted.Redacted
  /** `wss://api.elevenlabs.io` or a region/test server. */
  readonly url?: string
  readonly voiceId: string
  /** e.g. `eleven_flash_v2_5` (the lowest latency). */
  readonly modelId?: string
  readonly voiceSettings?: { readonly stability?: number; readonly similarity_boost?: number; readonly speed?: number }
}

export interface ElevenLabsTextToSpeechService {
  /** The sentences spoken in this format, as they are generated. */
  readonly synthesize: <E>(
    format: AudioFormat,
    sentences: Stream.Stream<string, E>
  ) => Stream.Stream<SpeechAudio, ElevenLabsError | E>
}

/** ElevenLabs' `output_format` for a call format, or undefined when it has none (e.g. big-endian L16). */
export const outputFormat = (format: AudioFormat): string | undefined => {
  if (format.encoding === "mulaw" && format.sampleRate === 8000) return "ulaw_8000"
  if (format.encoding === "alaw" && format.sampleRate === 8000) return "alaw_8000"
  if (format.encoding === "l16le" && [8000, 16000, 22050, 24000, 44100, 48000].includes(format.sampleRate)) {
    return `pcm_${format.sampleRate}`
  }
  return undefined
}

export const streamUrl = (options: ElevenLabsOptions, output: string): string => {
  const url = new URL(`/v1/text-to-speech/${encodeURIComponent(options.voiceId)}/stream-input`, options.url ?? "wss://api.elevenlabs.io")
  url.searchParams.set("model_id", options.modelId ?? "eleven_flash_v2_5")
  url.searchParams.set("output_format", output)
  return url.toString()
}

/** The alignment of a message: the documented `charsDurationsMs`, or `charDurationsMs` as some send. */
export const toAlignment = (raw: unknown): Alignment | undefined => {
  const chars = at(raw, "chars")
  if (!Array.isArray(chars)) return undefined
  const numbers = (value: unknown): ReadonlyArray<number> => (Array.isArray(value) ? value.map(Number) : [])
  return {
    chars: chars.map(String),
    startMs: numbers(at(raw, "charStartTimesMs")),
    durationMs: numbers(at(raw, "charsDurationsMs") ?? at(raw, "charDurationsMs"))
  }
}

export const make = (options: ElevenLabsOptions): ElevenLabsTextToSpeechService => ({
  synthesize: <E>(format: AudioFormat, sentences: Stream.Stream<string, E>) =>
    Stream.asyncScoped<SpeechAudio, ElevenLabsError | E>((emit) =>
      Effect.gen(function*() {
        const output = outputFormat(format)
        if (output === undefined) {
          return yield* new ElevenLabsError({ message: `no ElevenLabs output format for ${format.encoding} at ${format.sampleRate} Hz` })
        }
        const socket = yield* Effect.acquireRelease(
          Effect.sync(() => new WebSocket(streamUrl(options, output), { headers: { "xi-api-key": Redacted.value(options.apiKey) } })),
          (socket) => Effect.sync(() => socket.terminate())
        )
        let finished = false
        socket.on("message", (data) => {
          const parsed = parseJson(data.toString())
          if (parsed === undefined) return emit.fail(new ElevenLabsError({ message: `not JSON: ${data.toString().slice(0, 200)}` }))
          const message = parsed.value
          const error = at(message, "error")
          if (error !== undefined && error !== null) {
            const detail = typeof error === "string" ? error : JSON.stringify(error)
            const said = at(message, "message")
            return emit.fail(new ElevenLabsError({ message: `${detail}${said !== undefined ? `: ${String(said)}` : ""}` }))
          }
          const audioText = at(message, "audio")
          if (typeof audioText === "string" && audioText.length > 0) {
            const alignment = toAlignment(at(message, "alignment") ?? at(message, "normalizedAlignment"))
            const audio = { format, data: new Uint8Array(Buffer.from(audioText, "base64")) }
            emit.chunk(Chunk.of(alignment === undefined ? { audio } : { audio, alignment }))
          }
          if (at(message, "isFinal") === true || at(message, "is_final") === true) {
            finished = true
            emit.end()
          }
        })
        socket.on("unexpected-response", (_request, response) => {
          const status = response.statusCode ?? 0
          emit.fail(new ElevenLabsError({ message: `handshake refused with HTTP ${status}`, code: status }))
          socket.terminate()
        })
        socket.on("error", (error) => emit.fail(new ElevenLabsError({ message: error.message })))
        socket.on("close", (code, reason) => {
          if (finished) return
          emit.fail(new ElevenLabsError({ message: `connection closed (${code}) before the speech was complete ${reason.toString()}`.trim(), code }))
        })
        const opened = yield* Effect.async<boolean>((resume) => {
          socket.once("open", () => resume(Effect.succeed(true)))
          socket.once("close", () => resume(Effect.succeed(false)))
        })
        if (!opened) return
        const send = (message: unknown) =>
          Effect.sync(() => {
            if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message))
          })
        yield* send({ text: " ", ...(options.voiceSettings !== undefined ? { voice_settings: options.voiceSettings } : {}) })
        yield* sentences.pipe(
          Stream.filter((sentence) => sentence.trim().length > 0),
          // Each chunk ends with a space, as ElevenLabs asks; flush speaks it now.
          Stream.runForEach((sentence) => send({ text: sentence.endsWith(" ") ? sentence : `${sentence} `, flush: true })),
          Effect.andThen(send({ text: "" })),
          Effect.catchAll((error) => Effect.sync(() => emit.fail(error))),
          Effect.forkScoped
        )
      }).pipe(Effect.catchAll((error) => Effect.sync(() => emit.fail(error))))
    )
})

/** The adapter as the `TextToSpeech` port. */
export const toPort = (service: ElevenLabsTextToSpeechService) =>
  TextToSpeech.of({
    synthesize: (format, sentences) =>
      service.synthesize(format, sentences).pipe(
        Stream.mapError((error) =>
          error instanceof ElevenLabsError
            ? new SpeechError({ service: "elevenlabs", message: error.message, ...(error.code !== undefined ? { code: error.code } : {}) })
            : error
        )
      )
  })

export const layer = (options: ElevenLabsOptions) => Layer.succeed(TextToSpeech, toPort(make(options)))

/** `ELEVENLABS_API_KEY`, `AGENTLINE_ELEVENLABS_URL` (optional) and the voice, e.g. from `AGENTLINE_TTS=elevenlabs:<voice id>`. */
export const layerConfig = (voiceId: string, modelId?: string, options: { readonly apiKey?: Redacted.Redacted } = {}) =>
  Layer.effect(
    TextToSpeech,
    Effect.gen(function*() {
      // An organization's stored key when given, else the variable.
      const apiKey = options.apiKey ?? (yield* Config.redacted("ELEVENLABS_API_KEY"))
      const url = yield* Config.option(Config.string("AGENTLINE_ELEVENLABS_URL"))
      return toPort(make({
        apiKey,
        voiceId,
        ...(modelId !== undefined ? { modelId } : {}),
        ...(url._tag === "Some" ? { url: url.value } : {})
      }))
    })
  )
