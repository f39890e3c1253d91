/** A single call started by an API request (`/public/agent/...`): the request and the answer. */
import { RunId, TelephonyConfigurationId } from "../Ids.js"
import { Schema } from "effect"

export const CallRequest = Schema.Struct({
  phone_number: Schema.String,
  initial_context: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  telephony_configuration_id: Schema.optional(Schema.NullOr(TelephonyConfigurationId))
})
export type CallRequest = typeof CallRequest.Type

export const CallResponse = Schema.Struct({
  status: Schema.String,
  workflow_run_id: RunId,
  workflow_run_name: Schema.String
})
