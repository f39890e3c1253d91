import { Transactor } from "@agentline/core/Transactor"
import { SqlClient, SqlError } from "@effect/sql"
import { Effect, Layer } from "effect"

/** Transactions over the shared `SqlClient`: repositories called inside join them. */
export const layer = Layer.effect(
  Transactor,
  Effect.map(SqlClient.SqlClient, (sql) =>
    Transactor.of({
      withTransaction: (effect) =>
        sql.withTransaction(effect).pipe(Effect.catchIf((e): e is SqlError.SqlError => e instanceof SqlError.SqlError, Effect.die))
    }))
)
