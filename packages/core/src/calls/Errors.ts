/** What can go wrong starting a single call or handling a provider's callback. */
import { Schema } from "effect"

/** No agent with that uuid, or no agent with that trigger path. */
export class AgentNotFound extends Schema.TaggedError<AgentNotFound>()("AgentNotFound", {
  by: Schema.Literal("uuid", "trigger_path"),
  value: Schema.String
}) {
  override get message() {
    return this.by === "uuid" ? "Agent not found" : "Agent trigger not found"
  }
}

/** The trigger node exists but is disabled. */
export class AgentTriggerInactive extends Schema.TaggedError<AgentTriggerInactive>()("AgentTriggerInactive", {
  triggerPath: Schema.String
}) {
  override get message() {
    return "Agent trigger is not active"
  }
}

/** A callback for an attempt this server does not know, or not for this provider. */
export class UnknownCall extends Schema.TaggedError<UnknownCall>()("UnknownCall", { attemptId: Schema.Number }) {
  override get message() {
    return "Unknown call"
  }
}

// Declared with the telephony configurations (a layer below): transfer results are checked the same way.
export { InvalidCallbackSignature } from "../telephony/Errors.js"

/** The provider's callback body could not be read as call events. */
export class InvalidCallback extends Schema.TaggedError<InvalidCallback>()("InvalidCallback", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}
