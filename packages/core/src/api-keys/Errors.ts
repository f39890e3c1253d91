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

/** The key's owner was deactivated by an administrator: their keys work again once they are reactivated. */
export class ApiKeyOwnerDeactivated extends Schema.TaggedError<ApiKeyOwnerDeactivated>()("ApiKeyOwnerDeactivated", {
  apiKeyId: Schema.Number
}) {
  override get message() {
    return "The user of this API key is deactivated"
  }
}
