/**
 * What operators filter, sort and search runs by, derived from a run's JSON columns by the database
 * itself (generated columns, an FTS5 table kept by triggers, a `tsvector` expression index), so every
 * writer of a run keeps them true. Migrations 0024 and 0025 create them from these texts and the
 * queries of `SqlRunReports` name the same expressions: changing one needs a new migration.
 */

/** Generated columns of `workflow_runs` (migration 0024), per dialect. */
export const generatedColumns = {
  sqlite: [
    `disposition TEXT GENERATED ALWAYS AS (json_extract(gathered_context, '$.mapped_call_disposition')) VIRTUAL`,
    `outcome TEXT GENERATED ALWAYS AS (json_extract(gathered_context, '$.outcome')) VIRTUAL`,
    `phone_number TEXT GENERATED ALWAYS AS (CASE WHEN call_type = 'inbound' THEN json_extract(initial_context, '$.caller_number')
      ELSE COALESCE(json_extract(initial_context, '$.called_number'), json_extract(initial_context, '$.phone_number')) END) VIRTUAL`,
    `duration_seconds REAL GENERATED ALWAYS AS (CASE WHEN json_type(usage_info, '$.call_duration_seconds') IN ('integer', 'real')
      THEN json_extract(usage_info, '$.call_duration_seconds') ELSE 0 END) VIRTUAL`,
    `cost_usd REAL GENERATED ALWAYS AS (CASE WHEN json_type(cost_info, '$.total_cost_usd') IN ('integer', 'real')
      THEN json_extract(cost_info, '$.total_cost_usd') ELSE 0 END) VIRTUAL`
  ],
  pg: [
    `disposition TEXT GENERATED ALWAYS AS (gathered_context->>'mapped_call_disposition') STORED`,
    `outcome TEXT GENERATED ALWAYS AS (gathered_context->>'outcome') STORED`,
    `phone_number TEXT GENERATED ALWAYS AS (CASE WHEN call_type = 'inbound' THEN initial_context->>'caller_number'
      ELSE COALESCE(initial_context->>'called_number', initial_context->>'phone_number') END) STORED`,
    `duration_seconds DOUBLE PRECISION GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(usage_info->'call_duration_seconds') = 'number'
      THEN (usage_info->>'call_duration_seconds')::double precision ELSE 0 END) STORED`,
    `cost_usd DOUBLE PRECISION GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(cost_info->'total_cost_usd') = 'number'
      THEN (cost_info->>'total_cost_usd')::double precision ELSE 0 END) STORED`
  ]
} as const

/** Indexes over them (migration 0024), the same on both dialects. */
export const indexes = [
  `CREATE INDEX workflow_runs_org_created ON workflow_runs (organization_id, created_at, id)`,
  `CREATE INDEX workflow_runs_org_duration ON workflow_runs (organization_id, duration_seconds, id)`,
  `CREATE INDEX workflow_runs_org_cost ON workflow_runs (organization_id, cost_usd, id)`,
  `CREATE INDEX workflow_runs_org_disposition ON workflow_runs (organization_id, disposition, created_at, id)`,
  `CREATE INDEX workflow_runs_org_outcome ON workflow_runs (organization_id, outcome, created_at, id)`,
  `CREATE INDEX workflow_runs_org_phone ON workflow_runs (organization_id, phone_number, created_at, id)`,
  `CREATE INDEX workflow_runs_workflow_created ON workflow_runs (workflow_id, created_at, id)`,
  `CREATE INDEX workflow_runs_campaign_created ON workflow_runs (campaign_id, created_at, id)`,
  `CREATE INDEX workflow_runs_in_progress ON workflow_runs (organization_id, created_at, id) WHERE is_completed = {false}`
] as const

/**
 * The searchable text of a run on SQLite: the transcript's strings and the gathered context's values
 * (`row` is `NEW` in a trigger, the table in a backfill).
 */
const sqliteText = (row: string) =>
  `COALESCE((SELECT group_concat(value, ' ') FROM json_tree(${row}.logs, '$.transcript') WHERE type = 'text'), '') || ' ' ||
   COALESCE((SELECT group_concat(value, ' ') FROM json_tree(${row}.gathered_context) WHERE type IN ('text', 'integer', 'real')), '')`

/** The full-text index (migration 0025). */
export const search = {
  sqlite: [
    `CREATE VIRTUAL TABLE workflow_runs_search USING fts5(body, content = '', contentless_delete = 1)`,
    `INSERT INTO workflow_runs_search (rowid, body) SELECT id, ${sqliteText("workflow_runs")} FROM workflow_runs`,
    `CREATE TRIGGER workflow_runs_search_insert AFTER INSERT ON workflow_runs BEGIN
       INSERT INTO workflow_runs_search (rowid, body) VALUES (NEW.id, ${sqliteText("NEW")});
     END`,
    `CREATE TRIGGER workflow_runs_search_update AFTER UPDATE OF logs, gathered_context ON workflow_runs BEGIN
       INSERT OR REPLACE INTO workflow_runs_search (rowid, body) VALUES (NEW.id, ${sqliteText("NEW")});
     END`,
    `CREATE TRIGGER workflow_runs_search_delete AFTER DELETE ON workflow_runs BEGIN
       DELETE FROM workflow_runs_search WHERE rowid = OLD.id;
     END`
  ],
  pg: [
    `CREATE INDEX workflow_runs_search ON workflow_runs USING GIN ((${pgDocument()}))`
  ]
} as const

/** The `tsvector` of a run on PostgreSQL; queries must spell it exactly so to use the index. */
export function pgDocument(): string {
  return `jsonb_to_tsvector('simple'::regconfig, COALESCE(logs->'transcript', '[]'::jsonb), '["string"]'::jsonb) || ` +
    `jsonb_to_tsvector('simple'::regconfig, COALESCE(gathered_context, '{}'::jsonb), '["string", "numeric"]'::jsonb)`
}
