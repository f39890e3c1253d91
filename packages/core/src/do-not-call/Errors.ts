/** What can go wrong with the do-not-call list. */
import { Schema } from "effect"

/** Numbers that cannot be read as phone numbers: each with its place in the request and why. */
export class InvalidDoNotCallNumbers extends Schema.TaggedError<InvalidDoNotCallNumbers>()("InvalidDoNotCallNumbers", {
  issues: Schema.Array(Schema.Struct({ loc: Schema.Array(Schema.Union(Schema.String, Schema.Number)), input: Schema.String, reason: Schema.String }))
}) {
  override get message() {
    return this.issues.map((i) => i.reason).join("; ")
  }
}

export class DoNotCallEntryNotFound extends Schema.TaggedError<DoNotCallEntryNotFound>()("DoNotCallEntryNotFound", {
  phoneNumber: Schema.String
}) {
  override get message() {
    return `${this.phoneNumber} is not on the do-not-call list`
  }
}

/** A single call to a listed number is refused: the person asked not to be called. */
export class NumberOnDoNotCallList extends Schema.TaggedError<NumberOnDoNotCallList>()("NumberOnDoNotCallList", {
  phoneNumber: Schema.String
}) {
  override get message() {
    return `${this.phoneNumber} is on the organization's do-not-call list; it is not dialed (an administrator can remove it)`
  }
}
