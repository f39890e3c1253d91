import { type StoredTransfer, TransfersRepo } from "@agentline/core/transfers/TransfersRepo"
import { TransferMode } from "@agentline/telephony-kit/Transfer"
import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"

const TransferRow = Schema.Struct({
  id: Columns.Int,
  transfer_uuid: Schema.String,
  organization_id: Columns.Int,
  run_id: Columns.Int,
  attempt_id: Columns.Int,
  telephony_configuration_id: Schema.NullOr(Columns.Int),
  provider: Schema.String,
  provider_call_id: Schema.String,
  target: Schema.String,
  mode: TransferMode,
  requested_mode: TransferMode,
  status: Schema.Literal("dialing", "answered", "busy", "no_answer", "failed"),
  cause: Schema.NullOr(Schema.String),
  started_at: Columns.Ts,
  ended_at: Schema.NullOr(Columns.Ts)
})
const rows = Columns.decodeRows(TransferRow)

export const layer = Layer.effect(
  TransfersRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const select = (where: Statement.Fragment): Effect.Effect<ReadonlyArray<StoredTransfer>> =>
      sql`SELECT id, transfer_uuid, organization_id, run_id, attempt_id, telephony_configuration_id, provider, provider_call_id,
                 target, mode, requested_mode, status, cause, started_at, ended_at
          FROM call_transfers WHERE ${where} ORDER BY id`.pipe(Effect.flatMap(rows), Effect.orDie)
    const one = (transferUuid: string) => Effect.map(select(sql`transfer_uuid = ${transferUuid}`), (found) => Option.fromNullable(found[0]))
    return TransfersRepo.of({
      insert: (transfer) =>
        sql`INSERT INTO call_transfers ${sql.insert({ ...transfer, status: "dialing" })}`.pipe(
          Effect.orDie,
          Effect.zipRight(one(transfer.transfer_uuid)),
          Effect.flatMap(Option.match({ onNone: () => Effect.dieMessage("the inserted transfer was not found"), onSome: Effect.succeed }))
        ),
      find: one,
      finish: (transferUuid, result) =>
        sql`UPDATE call_transfers SET ${sql.update({ status: result.status, cause: result.cause, ended_at: result.endedAt })}
            WHERE transfer_uuid = ${transferUuid} AND status = 'dialing' RETURNING id`.pipe(
          Effect.orDie,
          Effect.flatMap((updated) => updated.length === 0 ? Effect.succeed(Option.none()) : one(transferUuid))
        ),
      forRun: (runId) => select(sql`run_id = ${runId}`)
    })
  })
)
