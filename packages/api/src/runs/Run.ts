/** Runs (calls of an agent) as the API shows them, and the artifacts a public link can name. */
import { DefinitionId, RunId, WorkflowId } from "../Ids.js"
import { Schema } from "effect"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const CallType = Schema.Literal("inbound", "outbound")

/** One call of an agent, as the API shows it (the spec's Workflow run). */
export const Run = Schema.Struct({
  id: RunId,
  workflow_id: WorkflowId,
  name: Schema.String,
  mode: Schema.String,
  created_at: Schema.String,
  is_completed: Schema.Boolean,
  transcript_url: Schema.NullOr(Schema.String),
  recording_url: Schema.NullOr(Schema.String),
  cost_info: Schema.NullOr(JsonObject),
  definition_id: Schema.NullOr(DefinitionId),
  call_type: CallType,
  user_recording_url: Schema.NullOr(Schema.String),
  bot_recording_url: Schema.NullOr(Schema.String),
  transcript_public_url: Schema.NullOr(Schema.String),
  recording_public_url: Schema.NullOr(Schema.String),
  user_recording_public_url: Schema.NullOr(Schema.String),
  bot_recording_public_url: Schema.NullOr(Schema.String),
  public_access_token: Schema.NullOr(Schema.String),
  usage_info: Schema.NullOr(JsonObject),
  initial_context: Schema.NullOr(JsonObject),
  gathered_context: Schema.NullOr(JsonObject),
  logs: Schema.NullOr(JsonObject),
  annotations: Schema.NullOr(JsonObject)
}).annotations({ identifier: "Run", description: "One call of an agent (a workflow run)" })
export type Run = typeof Run.Type

export const RunsPage = Schema.Struct({
  runs: Schema.Array(Run),
  total_count: Schema.Int,
  page: Schema.Int,
  limit: Schema.Int,
  total_pages: Schema.Int
}).annotations({ identifier: "RunsPage", description: "One page of runs" })
export type RunsPage = typeof RunsPage.Type

export const Artifact = Schema.Literal("transcript", "recording", "user_recording", "bot_recording")
export type Artifact = typeof Artifact.Type
