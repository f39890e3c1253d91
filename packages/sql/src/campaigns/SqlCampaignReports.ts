/**
 * A campaign's contacts with their last call (the report) and its failed calls (the progress), over the
 * indexes of migration 0027 (contacts by campaign and id, attempts by contact) and 0024 (runs' outcomes).
 */
import { CampaignReportsRepo } from "@agentline/core/campaigns/CampaignReportsRepo"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import * as Columns from "../Columns.js"
import * as StorageBoundary from "../StorageBoundary.js"

/** A text derived from JSON: SQLite gives a number where the JSON held one. */
const DerivedText = Schema.NullOr(Schema.Union(Schema.String, Schema.transform(Schema.Number, Schema.String, {
  strict: true,
  decode: String,
  encode: Number
})))

const ContactLine = Schema.Struct({
  id: Columns.Int,
  row_number: Columns.Int,
  phone_number: Schema.String,
  state: Schema.String,
  outcome: Schema.NullOr(Schema.String),
  attempts: Columns.Int,
  disposition: DerivedText,
  run_id: Schema.NullOr(Columns.Int),
  last_call_at: Schema.NullOr(Columns.Ts),
  duration_seconds: Schema.NullOr(Columns.Int),
  cost_usd: Schema.NullOr(Columns.Int),
  gathered_context: Schema.NullOr(Columns.JsonObject)
})
const decodeLines = Columns.decodeRows(ContactLine)
const decodeCount = Columns.decodeRows(Schema.Struct({ n: Columns.Int }))

export const layer = Layer.effect(
  CampaignReportsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return CampaignReportsRepo.of({
      failedCalls: ({ campaignId, organizationId }) =>
        sql`SELECT COUNT(*) AS n FROM workflow_runs
            WHERE campaign_id = ${campaignId} AND organization_id = ${organizationId} AND outcome IN ('busy', 'no_answer', 'failed')`.pipe(
          Effect.flatMap(decodeCount),
          Effect.map((rows) => rows[0]?.n ?? 0),
          StorageBoundary.orDie
        ),
      // The last attempt that has a run: a claim released before dialing has none.
      contacts: ({ campaignId, organizationId }, afterId, limit) =>
        sql`SELECT c.id, c.row_number, c.phone_number, c.state, c.last_outcome AS outcome, c.attempts,
              r.disposition, r.id AS run_id, r.created_at AS last_call_at, r.duration_seconds, r.cost_usd, r.gathered_context
            FROM contacts c
            LEFT JOIN workflow_runs r ON r.id = (
              SELECT a.run_id FROM call_attempts a WHERE a.contact_id = c.id AND a.run_id IS NOT NULL ORDER BY a.id DESC LIMIT 1)
            WHERE c.campaign_id = ${campaignId} AND c.organization_id = ${organizationId} AND c.id > ${afterId}
            ORDER BY c.id LIMIT ${limit}`.pipe(Effect.flatMap(decodeLines), StorageBoundary.orDie)
    })
  })
)
