/** A single call started by an API request (`/public/agent/...`): the request and the answer. */
import { RunId, TelephonyConfigurationId, WorkflowId } from "../Ids.js"
import { Schema } from "effect"

export const CallRequest = Schema.Struct({
  phone_number: Schema.String,
  initial_context: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  telephony_configuration_id: Schema.optional(Schema.NullOr(TelephonyConfigurationId))
})
export type CallRequest = typeof CallRequest.Type

/** A field of the reference's that is accepted only when null (or absent), refused with `message` otherwise. */
const unsupported = (message: string) =>
  Schema.Unknown.pipe(Schema.filter((value) => value === null || value === undefined, { message: () => message }))

/**
 * A test call from the dashboard or the API (`POST /telephony/initiate-call`, the reference's shape):
 * the agent by id, a login session or an API key. The reference's `workflow_run_id` (calling an existing
 * run again) and `from_phone_number_id` (choosing the caller ID) are not supported: sent with a value,
 * they are refused rather than ignored.
 */
export const TestCallRequest = Schema.Struct({
  workflow_id: WorkflowId,
  phone_number: Schema.String,
  /** Over the agent's `template_context_variables` (an addition to the reference's body). */
  initial_context: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  telephony_configuration_id: Schema.optional(Schema.NullOr(TelephonyConfigurationId)),
  workflow_run_id: Schema.optional(unsupported("workflow_run_id is not supported: a test call always starts a new run")),
  from_phone_number_id: Schema.optional(unsupported("from_phone_number_id is not supported: the configuration's caller IDs are used in turn"))
})
export type TestCallRequest = typeof TestCallRequest.Type

export const TestCallResponse = Schema.Struct({
  /** The reference's words: "Call initiated successfully with run name <name>". */
  message: Schema.String,
  workflow_run_id: RunId,
  workflow_run_name: Schema.String
})

export const CallResponse = Schema.Struct({
  status: Schema.String,
  workflow_run_id: RunId,
  workflow_run_name: Schema.String
})
