/**
 * Offline speech to text: pocketsphinx (Debian packages `pocketsphinx` and `pocketsphinx-en-us`)
 * reads 16 kHz 16-bit audio on its standard input as it arrives, finds utterances with its own voice
 * activity detection, and prints one hypothesis line per utterance as soon as the utterance ends.
 *
 * Open vocabulary (the model's trigram language model) is close to useless on telephone audio and
 * on synthesized voices (see docs/voice.md for the measurement); given the phrases a caller is
 * expected to say, a JSGF grammar of those phrases recognizes them well. The runtime passes the
 * phrases it knows (the simulator's scripted lines, a node's expected answers).
 */
import type { AudioFormat, AudioFrame } from "@agentline/core/audio/AudioFormat"
import { meterAudio, SpeechError, SpeechToText } from "@agentline/core/voice/Speech"
import type { SpeechEvent } from "@agentline/core/voice/Speech"
import { Command, CommandExecutor, FileSystem } from "@effect/platform"
import { isPlatformError } from "@effect/platform/Error"
import { Context, Effect, Fiber, Layer, Stream } from "effect"
import { makeConverter } from "@agentline/core/audio/Pcm"
import { DEFAULT_MODEL_DIRECTORY } from "./Installed.js"
import { processError } from "./LocalTextToSpeech.js"
import { LocalVoiceError } from "./LocalVoiceError.js"

export interface LocalSpeechToTextOptions {
  /** The folder of the US English model (Debian: /usr/share/pocketsphinx/model/en-us). */
  readonly modelDirectory?: string
}

export interface TranscribeOptions {
  /** Restrict recognition to these phrases (a grammar); without them the open language model is used. */
  readonly phrases?: ReadonlyArray<string>
}

export interface LocalSpeechToTextService {
  /** Each utterance found in the audio, as its text, when the utterance ends. */
  readonly transcribe: <E>(
    audio: Stream.Stream<AudioFrame, E>,
    options?: TranscribeOptions
  ) => Stream.Stream<string, LocalVoiceError | E>
}

export class LocalSpeechToText extends Context.Tag("@agentline/voice-local/LocalSpeechToText")<
  LocalSpeechToText,
  LocalSpeechToTextService
>() {}

const recognizerFormat: AudioFormat = { encoding: "l16le", sampleRate: 16000 }

/** A phrase as grammar words: lower case letters, digits and apostrophes (what the dictionary has). */
export const grammarWords = (phrase: string): string =>
  phrase.toLowerCase().replace(/[^a-z0-9' ]+/g, " ").replace(/\s+/g, " ").trim()

/** A JSGF grammar accepting exactly one of the phrases per utterance. */
export const jsgfGrammar = (phrases: ReadonlyArray<string>): string => {
  const alternatives = [...new Set(phrases.map(grammarWords).filter((words) => words.length > 0))]
  if (alternatives.length === 0) throw new RangeError("a grammar needs at least one phrase with words")
  return `#JSGF V1.0;\ngrammar phrases;\npublic <utterance> = ${alternatives.join(" | ")};\n`
}

export const make = (options: LocalSpeechToTextOptions = {}) =>
  Effect.gen(function*() {
    const executor = yield* CommandExecutor.CommandExecutor
    const fs = yield* FileSystem.FileSystem
    const model = options.modelDirectory ?? DEFAULT_MODEL_DIRECTORY

    const transcribe = <E>(audio: Stream.Stream<AudioFrame, E>, transcribeOptions: TranscribeOptions = {}) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const phrases = transcribeOptions.phrases ?? []
        const language = phrases.length > 0
          ? yield* Effect.gen(function*() {
            const file = yield* fs.makeTempFileScoped({ prefix: "agentline-grammar-" })
            yield* fs.writeFileString(file, jsgfGrammar(phrases))
            return ["-jsgf", file]
          }).pipe(Effect.orDie)
          : ["-lm", `${model}/en-us.lm.bin`]
        // -remove_noise no: its noise estimate erases speech band-limited to 4 kHz (any phone call).
        // Node gives a child a socket, not a pipe, as standard input, and pocketsphinx opens its input
        // by name (/dev/stdin fails on a socket): `cat` turns it into a pipe. The arguments stay
        // arguments ("$@"), never shell text.
        const recognizer = Command.make(
          "sh",
          "-c",
          "cat | exec pocketsphinx_continuous -infile /dev/stdin \"$@\"",
          "sh",
          "-remove_noise",
          "no",
          "-hmm",
          `${model}/en-us`,
          "-dict",
          `${model}/cmudict-en-us.dict`,
          ...language
        ).pipe(Command.stdin("pipe"))
        const process = yield* Command.start(recognizer).pipe(
          Effect.mapError(processError("pocketsphinx", "pocketsphinx and pocketsphinx-en-us"))
        )
        let converter: ReturnType<typeof makeConverter> | undefined
        let from: AudioFormat | undefined
        const feed = audio.pipe(
          Stream.map((frame) => {
            if (from === undefined || from.encoding !== frame.format.encoding || from.sampleRate !== frame.format.sampleRate) {
              from = frame.format
              converter = makeConverter(frame.format, recognizerFormat)
            }
            return converter!.push(frame.data)
          }),
          // A write into a recognizer that has exited (EPIPE) is not the error: its exit status says why.
          Stream.run(process.stdin),
          Effect.catchIf(isPlatformError, () => Effect.void)
        )
        // Its log goes to standard error; keep reading it (a full pipe would stall it) and keep the end.
        const log = yield* process.stderr.pipe(
          Stream.decodeText(),
          Stream.runFold("", (kept, text) => (kept + text).slice(-2000)),
          Effect.orElseSucceed(() => ""),
          Effect.forkScoped
        )
        const finished = Effect.gen(function*() {
          const code = yield* process.exitCode
          if (code === 127) {
            return yield* new LocalVoiceError({
              engine: "pocketsphinx",
              message: "pocketsphinx is not installed (Debian packages pocketsphinx and pocketsphinx-en-us)"
            })
          }
          if (code !== 0) {
            const tail = yield* Fiber.join(log)
            const errors = tail.split("\n").filter((line) => /ERROR|FATAL/.test(line)).slice(-3).join("; ")
            return yield* new LocalVoiceError({ engine: "pocketsphinx", message: `exit ${code}: ${errors}` })
          }
        }).pipe(Effect.catchTag("SystemError", "BadArgument", processError("pocketsphinx", "pocketsphinx")))
        const lines = process.stdout.pipe(
          Stream.mapError(processError("pocketsphinx", "pocketsphinx")),
          Stream.decodeText(),
          Stream.splitLines,
          Stream.map((line) => line.trim()),
          Stream.filter((line) => line.length > 0),
          Stream.concat(Stream.fromEffect(finished).pipe(Stream.drain))
        )
        return Stream.merge(
          lines,
          Stream.fromEffect(feed).pipe(Stream.drain),
          { haltStrategy: "left" }
        )
      })).pipe(Stream.provideService(CommandExecutor.CommandExecutor, executor))

    return LocalSpeechToText.of({ transcribe })
  })

export const layer = (options: LocalSpeechToTextOptions = {}) => Layer.effect(LocalSpeechToText, make(options))

/**
 * The offline recognizer as the `SpeechToText` port: each utterance is one `Final` at the end of the
 * caller's speech (pocketsphinx gives no interim results and no timings), and the audio it was given
 * as `Metadata` (before each `Final` and at the end: `meterAudio`), for the run's usage.
 */
export const portLayer = (options: LocalSpeechToTextOptions = {}) =>
  Layer.effect(
    SpeechToText,
    Effect.map(make(options), (local) =>
      SpeechToText.of({
        transcribe: (_format, audio, transcribeOptions) =>
          meterAudio(audio, (counted) =>
            local.transcribe(counted, transcribeOptions).pipe(
              Stream.map((text): SpeechEvent => ({ _tag: "Final", text, endOfSpeech: true, start: 0, duration: 0 }))
            )).pipe(
              Stream.mapError((error) =>
                error instanceof LocalVoiceError ? new SpeechError({ service: "local", message: error.message }) : error
              )
            )
      }))
  )
