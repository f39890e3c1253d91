/**
 * One migration set for both dialects: DDL is written once with a few type placeholders that each
 * dialect fills in. Only what differs is abstracted; everything else is plain SQL both accept.
 */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

const types = {
  pg: {
    id: "SERIAL PRIMARY KEY",
    ts: "TIMESTAMPTZ",
    json: "JSONB",
    bool: "BOOLEAN",
    true: "TRUE",
    false: "FALSE"
  },
  sqlite: {
    id: "INTEGER PRIMARY KEY AUTOINCREMENT",
    ts: "TEXT",
    json: "TEXT",
    bool: "INTEGER",
    true: "1",
    false: "0"
  }
} as const

/**
 * Runs each statement with `{id}`, `{ts}`, `{json}`, `{bool}`, `{true}`, `{false}` replaced for the
 * connected dialect.
 */
export const run = (sql: SqlClient.SqlClient, ...statements: ReadonlyArray<string>) => {
  const dialect = sql.onDialectOrElse({ pg: () => "pg" as const, orElse: () => "sqlite" as const })
  const t = types[dialect]
  return Effect.forEach(
    statements,
    (statement) =>
      sql.unsafe(statement.replace(/\{(id|ts|json|bool|true|false)\}/g, (_, key: keyof typeof t) => t[key])),
    { discard: true }
  )
}
