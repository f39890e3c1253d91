/** What can go wrong with API keys. */
import { Schema } from "effect"

export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", { apiKeyId: Schema.Number }) {
  override get message() {
    return "API key not found"
  }
}

/** Unknown, malformed or archived (which one is not said). */
export class InvalidApiKey extends Schema.TaggedError<InvalidApiKey>()("InvalidApiKey", {}) {
  override get message() {
    return "Invalid or archived API key"
  }
}

export class ApiKeyOwnerMissing extends Schema.TaggedError<ApiKeyOwnerMissing>()("ApiKeyOwnerMissing", {
  apiKeyId: Schema.Number
}) {
  override get message() {
    return "The owner of this API key no longer exists"
  }
}
