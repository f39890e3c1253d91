import { ApiKeyId } from "../Ids.js"
import { Schema } from "effect"
import { lengthLimits } from "../Params.js"

/** An API key as listed: never the key itself, only a short prefix to recognize it by. */
export const ApiKey = Schema.Struct({
  id: ApiKeyId,
  name: Schema.String,
  key_prefix: Schema.String,
  is_active: Schema.Boolean,
  created_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String),
  archived_at: Schema.NullOr(Schema.String)
})
export type ApiKey = typeof ApiKey.Type

/** The creation response: the only time the full key is shown. */
export const CreatedApiKey = Schema.Struct({
  id: ApiKeyId,
  name: Schema.String,
  key_prefix: Schema.String,
  api_key: Schema.String,
  created_at: Schema.String
})

export const CreateApiKeyRequest = Schema.Struct({
  name: Schema.Trim.pipe(Schema.minLength(1, { message: () => "name must not be empty" }), Schema.maxLength(100)).annotations(lengthLimits(1, 100))
})
