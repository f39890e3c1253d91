/** What can go wrong reading runs and their artifacts. */
import { Schema } from "effect"

export class RunNotFound extends Schema.TaggedError<RunNotFound>()("RunNotFound", { runId: Schema.Number }) {
  override get message() {
    return "Workflow run not found"
  }
}

/** A public download link whose signature is wrong or whose time is up (which one is not said). */
export class PublicLinkInvalid extends Schema.TaggedError<PublicLinkInvalid>()("PublicLinkInvalid", {}) {
  override get message() {
    return "Invalid or expired link"
  }
}

/** The run has no such artifact (never recorded, or no longer stored). */
export class RunArtifactMissing extends Schema.TaggedError<RunArtifactMissing>()("RunArtifactMissing", {
  runId: Schema.Number,
  artifact: Schema.String
}) {
  override get message() {
    return `No ${this.artifact.replace("_", " ")} available for this run`
  }
}

/** A `cursor` that is not one of this list's (another sort or order, or not a cursor at all). */
export class InvalidRunsCursor extends Schema.TaggedError<InvalidRunsCursor>()("InvalidRunsCursor", { reason: Schema.String }) {
  override get message() {
    return `Invalid cursor: ${this.reason}; start again without one`
  }
}

/** `filters` that are not the reference's JSON array of `{attribute, type, value}`. */
export class InvalidRunFilter extends Schema.TaggedError<InvalidRunFilter>()("InvalidRunFilter", {}) {
  override get message() {
    return "Invalid filter format"
  }
}
