import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ddl from "../Ddl.js"

/**
 * The organization's tools (`/api/v1/tools`): HTTP request templates and MCP servers agents may call.
 * The definition is the wire's JSON (an MCP server's catalog inside it); secrets stay in `credentials`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Ddl.run(
    sql,
    `CREATE TABLE tools (
      id {id},
      tool_uuid TEXT NOT NULL UNIQUE,
      organization_id INTEGER NOT NULL REFERENCES organizations(id),
      name TEXT NOT NULL,
      description TEXT,
      category TEXT NOT NULL CHECK (category IN ('http_api', 'mcp')),
      icon TEXT,
      icon_color TEXT,
      status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
      definition {json} NOT NULL,
      created_by INTEGER REFERENCES users(id),
      created_at {ts} NOT NULL,
      updated_at {ts}
    )`,
    `CREATE INDEX tools_organization ON tools (organization_id, created_at)`
  )
})
