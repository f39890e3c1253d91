/**
 * Whether the offline engines can run here: their programs on the PATH (and the recognizer's model), so
 * the server can say at start what a call would otherwise only find out when it speaks or listens.
 * The shell's own `command -v` finds a program as the engines' commands will.
 */
import { Command, CommandExecutor, FileSystem } from "@effect/platform"
import { Effect, Option } from "effect"

/** The US English model folder pocketsphinx-en-us installs (LocalSpeechToText's default). */
export const DEFAULT_MODEL_DIRECTORY = "/usr/share/pocketsphinx/model/en-us"

const onPath = (program: string) =>
  Command.exitCode(Command.make("sh", "-c", "command -v \"$1\" >/dev/null 2>&1", "sh", program)).pipe(
    Effect.map((code) => code === 0),
    Effect.orElseSucceed(() => false)
  )

const missing = (programs: ReadonlyArray<string>) =>
  Effect.map(Effect.forEach(programs, (program) => Effect.map(onPath(program), (found) => (found ? [] : [program]))), (lists) => lists.flat())

/** What the offline TTS lacks (espeak-ng speaks, sox converts), in words with the packages to install; none when it can run. */
export const textToSpeechMissing: Effect.Effect<Option.Option<string>, never, CommandExecutor.CommandExecutor> = Effect.map(
  missing(["espeak-ng", "sox"]),
  (absent) => absent.length === 0 ? Option.none() : Option.some(`${absent.join(" and ")} not installed (apt-get install espeak-ng sox)`)
)

/** What the offline STT lacks (pocketsphinx_continuous and its US English model); none when it can run. */
export const speechToTextMissing = (modelDirectory: string = DEFAULT_MODEL_DIRECTORY): Effect.Effect<
  Option.Option<string>,
  never,
  CommandExecutor.CommandExecutor | FileSystem.FileSystem
> =>
  Effect.gen(function*() {
    const absent = [...(yield* missing(["pocketsphinx_continuous"]))]
    const fs = yield* FileSystem.FileSystem
    const model = yield* fs.exists(`${modelDirectory}/en-us`).pipe(Effect.orElseSucceed(() => false))
    if (!model) absent.push(`the US English model (${modelDirectory})`)
    return absent.length === 0 ? Option.none() : Option.some(`${absent.join(" and ")} not installed (apt-get install pocketsphinx pocketsphinx-en-us)`)
  })
