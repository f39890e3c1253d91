/**
 * The repositories' boundary: what fails below it is a defect (the domain cannot act on a broken query
 * or a row that does not decode), and a storage failure (`SqlError`: a lost connection, a refused
 * statement) is core's `StorageError`, so the callers that can retry recognize it without knowing SQL.
 */
import { StorageError } from "@agentline/core/Storage"
import { SqlError } from "@effect/sql"
import { Effect } from "effect"

/** The defect `error` becomes at the boundary. */
export const defectOf = (error: unknown): unknown => (error instanceof SqlError.SqlError ? new StorageError({ cause: error }) : error)

/** `Effect.orDie` for repositories: a `SqlError` dies as a `StorageError`. */
export const orDie = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, never, R> => Effect.orDieWith(self, defectOf)
