import { Schema } from "effect"

/** Something that keeps the server's voice services from working as configured, with what to do. */
export const ConfigurationProblem = Schema.Struct({
  /** The service at fault: `llm`, `stt` or `tts` (the reference's `model`). */
  model: Schema.String,
  /** What is wrong and what to set or install, for a person. */
  message: Schema.String
}).annotations({ identifier: "ConfigurationProblem" })

/** The reference's `APIKeyStatusResponse`: empty when nothing is known to be wrong. */
export const ConfigurationStatus = Schema.Struct({
  status: Schema.Array(ConfigurationProblem)
}).annotations({ identifier: "ConfigurationStatus" })
