import { Schema } from "effect"

/** A local speech engine could not run (not installed, crashed, or refused its input). */
export class LocalVoiceError extends Schema.TaggedError<LocalVoiceError>()("LocalVoiceError", {
  engine: Schema.Literal("espeak-ng", "sox", "pocketsphinx"),
  message: Schema.String
}) {}
