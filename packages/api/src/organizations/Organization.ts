import { OrganizationId } from "../Ids.js"
import { Schema } from "effect"

export const Organization = Schema.Struct({
  id: OrganizationId,
  name: Schema.String,
  /** Calls in progress at once across all of the organization's campaigns and single calls. */
  concurrent_call_limit: Schema.Int,
  created_at: Schema.String
})
export type Organization = typeof Organization.Type

/** The organization's concurrency limit when nobody set one (the reference's default too). */
export const DEFAULT_CONCURRENT_CALL_LIMIT = 10
export const MAX_CONCURRENT_CALL_LIMIT = 1000

export const ConcurrencyLimitUpdate = Schema.Struct({
  concurrent_call_limit: Schema.Int.pipe(
    Schema.between(1, MAX_CONCURRENT_CALL_LIMIT, {
      message: () => `concurrent_call_limit must be an integer between 1 and ${MAX_CONCURRENT_CALL_LIMIT}`
    })
  )
})
