import { Schema } from "effect"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const CallType = Schema.Literal("inbound", "outbound")

/** One call of an agent, as the API shows it (the spec's Workflow run). */
export const Run = Schema.Struct({
  id: Schema.Int,
  workflow_id: Schema.Int,
  name: Schema.String,
  mode: Schema.String,
  created_at: Schema.String,
  is_completed: Schema.Boolean,
  transcript_url: Schema.NullOr(Schema.String),
  recording_url: Schema.NullOr(Schema.String),
  cost_info: Schema.NullOr(JsonObject),
  definition_id: Schema.NullOr(Schema.Int),
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
})
export type Run = typeof Run.Type

export const RunsPage = Schema.Struct({
  runs: Schema.Array(Run),
  total_count: Schema.Int,
  page: Schema.Int,
  limit: Schema.Int,
  total_pages: Schema.Int
})
export type RunsPage = typeof RunsPage.Type

export const Artifact = Schema.Literal("transcript", "recording", "user_recording", "bot_recording")
export type Artifact = typeof Artifact.Type

/** A run as stored: artifact blob keys instead of links. */
export interface StoredRun {
  readonly id: number
  readonly organization_id: number
  readonly workflow_id: number
  readonly campaign_id: number | null
  readonly definition_id: number | null
  readonly name: string
  readonly mode: string
  readonly call_type: "inbound" | "outbound"
  readonly is_completed: boolean
  readonly initial_context: Record<string, unknown> | null
  readonly gathered_context: Record<string, unknown> | null
  readonly cost_info: Record<string, unknown> | null
  readonly usage_info: Record<string, unknown> | null
  readonly logs: Record<string, unknown> | null
  readonly annotations: Record<string, unknown> | null
  readonly artifacts: { readonly [A in Artifact]: string | null }
  readonly created_at: string
  readonly updated_at: string
}
