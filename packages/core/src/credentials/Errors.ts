/** What can go wrong with stored credentials. */
import { Schema } from "effect"

export class CredentialNotFound extends Schema.TaggedError<CredentialNotFound>()("CredentialNotFound", { uuid: Schema.String }) {
  override get message() {
    return `Credential ${this.uuid} not found in this organization`
  }
}

/** `credential_data` does not fit its type: every field at fault. */
export class InvalidCredentialData extends Schema.TaggedError<InvalidCredentialData>()("InvalidCredentialData", {
  issues: Schema.Array(Schema.Struct({ field: Schema.String, message: Schema.String }))
}) {
  override get message() {
    return this.issues.map((i) => i.message).join("; ")
  }
}
