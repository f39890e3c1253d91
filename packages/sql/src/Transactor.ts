import { Transactor } from "@agentline/core/Transactor"
import { SqlClient, SqlError } from "@effect/sql"
import { Effect, Layer } from "effect"
import * as StorageBoundary from "./StorageBoundary.js"

/** Transactions over the shared `SqlClient`: repositories called inside join them; a failed begin or commit is a `StorageError` defect. */
export const layer = Layer.effect(
  Transactor,
  Effect.map(SqlClient.SqlClient, (sql) =>
    Transactor.of({
      withTransaction: (effect) =>
        sql.withTransaction(effect).pipe(Effect.catchIf((e): e is SqlError.SqlError => e instanceof SqlError.SqlError, (e) => Effect.die(StorageBoundary.defectOf(e))))
    }))
)
