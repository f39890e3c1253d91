/** What can go wrong placing a single call (campaign calls record their failures on the contact instead). */
import { Schema } from "effect"

/** The organization already has as many calls in progress as it allows. */
export class ConcurrencyLimitReached extends Schema.TaggedError<ConcurrencyLimitReached>()("ConcurrencyLimitReached", {
  organizationId: Schema.Number
}) {
  override get message() {
    return "Concurrent call limit reached: the organization has as many calls in progress as it allows; retry when one ends"
  }
}

/** The provider refused or failed to place the call. */
export class CallNotPlaced extends Schema.TaggedError<CallNotPlaced>()("CallNotPlaced", { reason: Schema.String }) {
  override get message() {
    return `Failed to initiate call: ${this.reason}`
  }
}
