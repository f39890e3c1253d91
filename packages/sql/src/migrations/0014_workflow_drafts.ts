import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * Drafts: a version of an agent may now be a `draft` (saved, not yet run by campaigns, API triggers
 * and inbound calls) besides `published` and `archived`, and records when it was published. At most
 * one draft and one published version per agent, enforced here. Every version stored before this
 * migration was published when it was saved, so each gets its creation time as `published_at`.
 *
 * `trigger_paths` lists the trigger paths a version claims: a path stays routed to its agent while
 * the published version or the draft has it (a draft that drops a trigger must not break the published
 * version's link). The current published version claims exactly its agent's active paths, as every save
 * published and synced them until now; archived versions need none.
 *
 * SQLite cannot change a CHECK constraint in place: the table is rebuilt (the runs' foreign key keeps
 * naming it; `Migrations.run` turns foreign key enforcement off around the migrations, as SQLite's
 * documented procedure for such changes requires, and checks every key afterwards).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function*() {
        // The CHECK's generated name is not part of any contract: find it by what it constrains.
        const checks = yield* sql<{ readonly conname: string }>`SELECT conname FROM pg_constraint
          WHERE conrelid = 'workflow_definitions'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%status%'`
        for (const check of checks) yield* sql.unsafe(`ALTER TABLE workflow_definitions DROP CONSTRAINT "${check.conname}"`)
        yield* Ddl.run(
          sql,
          `ALTER TABLE workflow_definitions ADD CONSTRAINT workflow_definitions_status_check
             CHECK (status IN ('draft', 'published', 'archived'))`,
          `ALTER TABLE workflow_definitions ADD COLUMN published_at {ts}`,
          `UPDATE workflow_definitions SET published_at = created_at`,
          `ALTER TABLE workflow_definitions ADD COLUMN trigger_paths {json}`,
          `UPDATE workflow_definitions d SET trigger_paths = COALESCE(
             (SELECT jsonb_agg(t.trigger_path ORDER BY t.trigger_path) FROM agent_triggers t
              WHERE t.workflow_id = d.workflow_id AND t.state = 'active'), '[]'::jsonb)
           WHERE d.status = 'published'`
        )
      }),
    orElse: () =>
      Ddl.run(
        sql,
        `CREATE TABLE workflow_definitions_next (
          id {id},
          workflow_id INTEGER NOT NULL REFERENCES workflows(id),
          version_number INTEGER NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('draft', 'published', 'archived')),
          workflow_definition {json} NOT NULL,
          template_context_variables {json},
          workflow_configurations {json},
          created_at {ts} NOT NULL,
          published_at {ts},
          trigger_paths {json},
          UNIQUE (workflow_id, version_number)
        )`,
        `INSERT INTO workflow_definitions_next
          (id, workflow_id, version_number, status, workflow_definition, template_context_variables, workflow_configurations, created_at, published_at)
          SELECT id, workflow_id, version_number, status, workflow_definition, template_context_variables, workflow_configurations, created_at, created_at
          FROM workflow_definitions`,
        `DROP TABLE workflow_definitions`,
        `ALTER TABLE workflow_definitions_next RENAME TO workflow_definitions`,
        `UPDATE workflow_definitions SET trigger_paths = COALESCE(
           (SELECT json_group_array(trigger_path) FROM (SELECT trigger_path FROM agent_triggers t
            WHERE t.workflow_id = workflow_definitions.workflow_id AND t.state = 'active' ORDER BY trigger_path)), '[]')
         WHERE status = 'published'`
      )
  })
  yield* Ddl.run(
    sql,
    `CREATE UNIQUE INDEX workflow_definitions_one_draft ON workflow_definitions (workflow_id) WHERE status = 'draft'`,
    `CREATE UNIQUE INDEX workflow_definitions_one_published ON workflow_definitions (workflow_id) WHERE status = 'published'`
  )
})
