import type { TransferMode, TransferOutcome } from "@agentline/telephony-kit/Transfer"
import { Context, type Effect, type Option } from "effect"

export type TransferStatus = "dialing" | TransferOutcome

/** A transfer as stored (`call_transfers`). */
export interface StoredTransfer {
  readonly id: number
  readonly transfer_uuid: string
  readonly organization_id: number
  readonly run_id: number
  readonly attempt_id: number
  readonly telephony_configuration_id: number | null
  readonly provider: string
  readonly provider_call_id: string
  readonly target: string
  /** What the provider was asked to do (`cold` where `warm` was asked of a provider without it). */
  readonly mode: TransferMode
  readonly requested_mode: TransferMode
  readonly status: TransferStatus
  readonly cause: string | null
  readonly started_at: string
  readonly ended_at: string | null
}

export type NewTransfer = Omit<StoredTransfer, "id" | "status" | "cause" | "ended_at">

/** Storage port for transfers. */
export class TransfersRepo extends Context.Tag("@agentline/core/TransfersRepo")<TransfersRepo, {
  readonly insert: (transfer: NewTransfer) => Effect.Effect<StoredTransfer>
  readonly find: (transferUuid: string) => Effect.Effect<Option.Option<StoredTransfer>>
  /**
   * Ends a transfer that is still `dialing` with its outcome; `None` when it had ended already (the
   * first result counts) or does not exist.
   */
  readonly finish: (
    transferUuid: string,
    result: { readonly status: TransferOutcome; readonly cause: string | null; readonly endedAt: string }
  ) => Effect.Effect<Option.Option<StoredTransfer>>
  /** A run's transfers, oldest first. */
  readonly forRun: (runId: number) => Effect.Effect<ReadonlyArray<StoredTransfer>>
}>() {}
