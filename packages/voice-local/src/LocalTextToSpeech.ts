/**
 * Offline text to speech: espeak-ng (Debian package `espeak-ng`) speaks the text as WAV on its
 * standard output, sox (package `sox`) converts it to the call's encoding and rate, and the bytes come
 * back as 20 ms frames while sox writes them. The text goes in on standard input, never on the
 * command line, so no text can be read as an option.
 */
import type { AudioFormat, AudioFrame } from "@agentline/core/audio/AudioFormat"
import { SpeechError, TextToSpeech } from "@agentline/core/voice/Speech"
import { Command, CommandExecutor } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Context, Effect, Layer, Stream } from "effect"
import { bytesPerSample, frameBytes } from "@agentline/core/audio/AudioFormat"
import { makeFramer } from "@agentline/core/audio/Frames"
import { LocalVoiceError } from "./LocalVoiceError.js"

export interface LocalTextToSpeechOptions {
  /** An espeak-ng voice (`espeak-ng --voices`), e.g. `en-us`, `en-gb`, `en-us+f3`. */
  readonly voice?: string
  /** Speaking rate in words per minute (espeak-ng's `-s`; its default is 175). */
  readonly wordsPerMinute?: number
  /** Length of the frames returned, in milliseconds. */
  readonly frameMs?: number
}

export interface LocalTextToSpeechService {
  /** The text spoken in this format, as frames of `frameMs` (the last one may be shorter). */
  readonly synthesize: (text: string, format: AudioFormat) => Stream.Stream<AudioFrame, LocalVoiceError>
}

export class LocalTextToSpeech extends Context.Tag("@agentline/voice-local/LocalTextToSpeech")<
  LocalTextToSpeech,
  LocalTextToSpeechService
>() {}

/** sox's output options for an encoding. */
const soxEncoding = (format: AudioFormat): ReadonlyArray<string> => {
  switch (format.encoding) {
    case "mulaw":
      return ["-e", "u-law", "-b", "8"]
    case "alaw":
      return ["-e", "a-law", "-b", "8"]
    case "l16le":
      return ["-e", "signed-integer", "-b", "16", "-L"]
    case "l16be":
      return ["-e", "signed-integer", "-b", "16", "-B"]
  }
}

/** A platform failure of a child process as the engine's error ("not found" says what to install). */
export const processError = (engine: LocalVoiceError["engine"], packageName: string) => (error: PlatformError) =>
  new LocalVoiceError({
    engine,
    message: error._tag === "SystemError" && error.reason === "NotFound"
      ? `${engine} is not installed (Debian package ${packageName})`
      : `${engine} failed: ${error.message}`
  })

export const make = (options: LocalTextToSpeechOptions = {}) =>
  Effect.gen(function*() {
    const executor = yield* CommandExecutor.CommandExecutor
    const voice = options.voice ?? "en-us"
    const wordsPerMinute = options.wordsPerMinute ?? 150
    const frameMs = options.frameMs ?? 20

    const synthesize = (text: string, format: AudioFormat): Stream.Stream<AudioFrame, LocalVoiceError> =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const speak = Command.make("espeak-ng", "-v", voice, "-s", String(wordsPerMinute), "--stdout").pipe(
          Command.feed(text)
        )
        const convert = Command.make(
          "sox",
          "-t",
          "wav",
          "-",
          "-t",
          "raw",
          "-r",
          String(format.sampleRate),
          ...soxEncoding(format),
          "-c",
          "1",
          "-"
        )
        const process = yield* Command.start(speak.pipe(Command.pipeTo(convert))).pipe(
          Effect.mapError(processError("espeak-ng", "espeak-ng and sox"))
        )
        const framer = makeFramer(frameBytes(format, frameMs), bytesPerSample(format.encoding))
        const finished = Effect.gen(function*() {
          const [code, stderr] = yield* Effect.all([
            process.exitCode,
            process.stderr.pipe(Stream.decodeText(), Stream.mkString)
          ], { concurrency: 2 })
          if (code !== 0) {
            return yield* new LocalVoiceError({ engine: "sox", message: `exit ${code}: ${stderr.trim()}` })
          }
          const rest = framer.flush()
          return rest === undefined ? [] : [rest]
        }).pipe(Effect.catchTag("SystemError", "BadArgument", processError("sox", "sox")))
        return process.stdout.pipe(
          Stream.mapError(processError("sox", "sox")),
          Stream.mapConcat(framer.push),
          Stream.concat(Stream.fromIterableEffect(finished)),
          Stream.map((data): AudioFrame => ({ format, data }))
        )
      })).pipe(Stream.provideService(CommandExecutor.CommandExecutor, executor))

    return LocalTextToSpeech.of({ synthesize })
  })

export const layer = (options: LocalTextToSpeechOptions = {}) => Layer.effect(LocalTextToSpeech, make(options))

/** The offline voice as the `TextToSpeech` port: each sentence spoken as soon as it arrives. */
export const portLayer = (options: LocalTextToSpeechOptions = {}) =>
  Layer.effect(
    TextToSpeech,
    Effect.map(make(options), (local) =>
      TextToSpeech.of({
        synthesize: (format, sentences) =>
          sentences.pipe(
            Stream.filter((sentence) => sentence.trim().length > 0),
            Stream.flatMap((sentence) => local.synthesize(sentence, format)),
            Stream.map((audio) => ({ audio })),
            Stream.mapError((error) =>
              error instanceof LocalVoiceError ? new SpeechError({ service: "local", message: error.message }) : error
            )
          )
      }))
  )
