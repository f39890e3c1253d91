/**
 * A campaign's append-only `logs` (stored oldest first): what happened to it and why, for the person
 * reading the campaign. The one definition of an entry, used by the API's schema, the campaign
 * service, the dispatcher and storage.
 */
import { Schema } from "effect"

export const LogLevel = Schema.Literal("info", "warning", "error")
export type LogLevel = typeof LogLevel.Type

export const LogEntry = Schema.Struct({
  ts: Schema.String,
  level: LogLevel,
  event: Schema.String,
  message: Schema.String,
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type LogEntry = typeof LogEntry.Type
