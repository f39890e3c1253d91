/**
 * Migration 0014 (drafts) on a database that already holds agents, versions and runs: nothing is lost,
 * every stored version counts as published when it was saved, the runs keep their versions, and the
 * new rules hold (one draft and one published version per agent; SQLite enforces foreign keys again).
 */
import { Migrator, SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Migrations, Testing } from "../src/index.js"

const before = Object.fromEntries(Object.entries(Migrations.migrations).filter(([key]) => key < "0014"))

for (const dialect of Testing.dialects) {
  layer(Testing.layerEmptyDatabase(dialect), { timeout: "60 seconds" })(`Drafts migration [${dialect}]`, (it) => {
    it.effect("keeps versions and runs, marks every stored version as published when saved, and enforces the new rules", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrator.make({})({ loader: Migrator.fromRecord(before), table: "agentline_migrations" })
        const at = "2025-01-02T03:04:05.000Z"
        yield* sql`INSERT INTO organizations (name, created_at) VALUES ('old', ${at})`
        yield* sql`INSERT INTO workflows (organization_id, workflow_uuid, name, status, created_at, updated_at)
                   VALUES (1, 'uuid-1', 'Agent', 'active', ${at}, ${at})`
        yield* sql`INSERT INTO workflow_definitions (workflow_id, version_number, status, workflow_definition, created_at)
                   VALUES (1, 1, 'archived', '{"nodes":[],"edges":[]}', ${at}), (1, 2, 'published', '{"nodes":[],"edges":[]}', ${at})`
        yield* sql`UPDATE workflows SET current_definition_id = 2 WHERE id = 1`
        yield* sql`INSERT INTO agent_triggers (trigger_path, workflow_id, organization_id, state)
                   VALUES ('path-b', 1, 1, 'active'), ('path-a', 1, 1, 'active'), ('path-old', 1, 1, 'archived')`
        yield* sql`INSERT INTO workflow_runs (organization_id, workflow_id, definition_id, name, mode, call_type, created_at, updated_at)
                   VALUES (1, 1, 1, 'WR-1', 'simulator', 'outbound', ${at}, ${at})`

        const applied = yield* Migrations.run
        expect(applied.map(([id]) => id)).toContain(14)

        const versions = yield* sql<{ id: number; version_number: number; status: string; published_at: unknown; trigger_paths: unknown }>`
          SELECT id, version_number, status, published_at, trigger_paths FROM workflow_definitions ORDER BY id`
        expect(versions.map((v) => [Number(v.id), Number(v.version_number), v.status])).toEqual([[1, 1, "archived"], [2, 2, "published"]])
        expect(versions.every((v) => v.published_at !== null)).toBe(true)
        // The published version claims the agent's active trigger paths.
        const claimed = versions.map((v) => typeof v.trigger_paths === "string" ? JSON.parse(v.trigger_paths) : v.trigger_paths)
        expect(claimed).toEqual([null, ["path-a", "path-b"]])
        const runs = yield* sql<{ definition_id: number }>`SELECT definition_id FROM workflow_runs`
        expect(runs.map((r) => Number(r.definition_id))).toEqual([1])

        // One draft per agent; a new published version only once the old one is archived.
        yield* sql`INSERT INTO workflow_definitions (workflow_id, version_number, status, workflow_definition, created_at)
                   VALUES (1, 3, 'draft', '{"nodes":[],"edges":[]}', ${at})`
        const secondDraft = yield* Effect.either(sql`INSERT INTO workflow_definitions (workflow_id, version_number, status, workflow_definition, created_at)
                   VALUES (1, 4, 'draft', '{"nodes":[],"edges":[]}', ${at})`)
        expect(secondDraft._tag).toBe("Left")
        const secondPublished = yield* Effect.either(sql`UPDATE workflow_definitions SET status = 'published' WHERE id = 3`)
        expect(secondPublished._tag).toBe("Left")
        const unknownStatus = yield* Effect.either(sql`UPDATE workflow_definitions SET status = 'pending' WHERE id = 3`)
        expect(unknownStatus._tag).toBe("Left")
        // Foreign keys hold again after the migrations.
        const dangling = yield* Effect.either(sql`INSERT INTO workflow_runs (organization_id, workflow_id, definition_id, name, mode, call_type, created_at, updated_at)
                   VALUES (1, 1, 999, 'WR-2', 'simulator', 'outbound', ${at}, ${at})`)
        expect(dangling._tag).toBe("Left")
        // New rows keep counting above the highest id (PostgreSQL's sequence also spent values on the refused inserts).
        const next = yield* sql<{ id: number }>`INSERT INTO workflow_definitions (workflow_id, version_number, status, workflow_definition, created_at)
                   VALUES (1, 5, 'archived', '{}', ${at}) RETURNING id`
        expect(Number(next[0]!.id)).toBeGreaterThan(3)
      }))
  })
}
