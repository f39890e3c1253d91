/** What can go wrong with embed tokens and the public embed. */
import { Schema } from "effect"

/** No embed token with that value (never issued, or mistyped). */
export class EmbedTokenNotFound extends Schema.TaggedError<EmbedTokenNotFound>()("EmbedTokenNotFound", {}) {
  override get message() {
    return "Invalid embed token"
  }
}

/** The token was revoked by its owner. */
export class EmbedTokenInactive extends Schema.TaggedError<EmbedTokenInactive>()("EmbedTokenInactive", {}) {
  override get message() {
    return "Embed token is inactive"
  }
}

export class EmbedTokenExpired extends Schema.TaggedError<EmbedTokenExpired>()("EmbedTokenExpired", {}) {
  override get message() {
    return "Embed token has expired"
  }
}

/** The request's page is not on the token's allowed origins (or the request says no origin). */
export class EmbedOriginRefused extends Schema.TaggedError<EmbedOriginRefused>()("EmbedOriginRefused", {
  origin: Schema.NullOr(Schema.String)
}) {
  override get message() {
    return this.origin === null
      ? "Domain not allowed: the request has no Origin header; the widget works on the pages its token allows"
      : `Domain not allowed: ${this.origin}`
  }
}

/** The token's agent is archived: it talks to nobody until it is restored. Says nothing more to visitors. */
export class EmbedAgentUnavailable extends Schema.TaggedError<EmbedAgentUnavailable>()("EmbedAgentUnavailable", {}) {
  override get message() {
    return "This agent is not available"
  }
}

export class EmbedUsageLimitReached extends Schema.TaggedError<EmbedUsageLimitReached>()("EmbedUsageLimitReached", {}) {
  override get message() {
    return "Embed token usage limit exceeded"
  }
}

/** One visitor started too many sessions (or fetched the configuration too often) in a short time. */
export class EmbedVisitorThrottled extends Schema.TaggedError<EmbedVisitorThrottled>()("EmbedVisitorThrottled", {
  retryAfterSeconds: Schema.Number
}) {
  override get message() {
    return `Too many requests from this visitor; try again in ${this.retryAfterSeconds} seconds`
  }
}

/** The agent has no active embed token (none made yet, or revoked). */
export class NoActiveEmbedToken extends Schema.TaggedError<NoActiveEmbedToken>()("NoActiveEmbedToken", { workflowId: Schema.Number }) {
  override get message() {
    return "No active embed token found for this workflow"
  }
}

/** Another request made the agent's embed token while this one was making it too. */
export class EmbedTokenChangedMeanwhile extends Schema.TaggedError<EmbedTokenChangedMeanwhile>()("EmbedTokenChangedMeanwhile", {
  workflowId: Schema.Number
}) {
  override get message() {
    return `Another request created the embed token of agent ${this.workflowId} at the same time; send the request again to update it`
  }
}

/** Every field at fault in an embed token request or a session's context variables. */
export class InvalidEmbedRequest extends Schema.TaggedError<InvalidEmbedRequest>()("InvalidEmbedRequest", {
  issues: Schema.Array(Schema.Struct({
    loc: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
    message: Schema.String,
    input: Schema.Unknown
  }))
}) {
  override get message() {
    return this.issues.map((issue) => issue.message).join("; ")
  }
}
