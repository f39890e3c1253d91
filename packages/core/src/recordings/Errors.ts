/** What can go wrong with an organization's recordings. */
import { Schema } from "effect"

export class RecordingNotFound extends Schema.TaggedError<RecordingNotFound>()("RecordingNotFound", { recording: Schema.String }) {
  override get message() {
    return `Recording ${this.recording} not found in this organization`
  }
}

/** Every recording of a batch at fault, each with its field (`recordings.<index>.<field>`). */
export class InvalidRecordings extends Schema.TaggedError<InvalidRecordings>()("InvalidRecordings", {
  issues: Schema.Array(Schema.Struct({ loc: Schema.Array(Schema.Union(Schema.String, Schema.Number)), message: Schema.String, input: Schema.Unknown }))
}) {
  override get message() {
    return this.issues.map((i) => i.message).join("; ")
  }
}

/** Another active recording of the organization has that name. */
export class RecordingIdTaken extends Schema.TaggedError<RecordingIdTaken>()("RecordingIdTaken", { recordingId: Schema.String }) {
  override get message() {
    return `recording_id '${this.recordingId}' is already used by another recording of this organization; choose another name`
  }
}

/** The server has no speech-to-text service (an embedding application gave its own call handler). */
export class SpeechToTextUnavailable extends Schema.TaggedError<SpeechToTextUnavailable>()("SpeechToTextUnavailable", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/** The uploaded file to transcribe is not audio we can read. */
export class UnreadableAudio extends Schema.TaggedError<UnreadableAudio>()("UnreadableAudio", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}
