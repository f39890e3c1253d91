import { Schema } from "effect"

export const Organization = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  /** Calls in progress at once across all of the organization's campaigns and single calls. */
  concurrent_call_limit: Schema.Int,
  created_at: Schema.String
})
export type Organization = typeof Organization.Type

/** The organization's concurrency limit when nobody set one (the reference's default too). */
export const DEFAULT_CONCURRENT_CALL_LIMIT = 10
export const MAX_CONCURRENT_CALL_LIMIT = 1000
