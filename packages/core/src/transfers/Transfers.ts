/**
 * Transfers to a person (`docs/transfer.md`): the voice runtime asks, through its call's `CallAudio`,
 * to hand the caller to a number or SIP URI; this service records the transfer (`call_transfers`, and
 * the run's `logs.transfer`), asks the provider (`calls.transfer`) once, and records the result the
 * provider reports — in-process, or posted to `/api/v1/telephony/transfer-result/{transfer_id}` and
 * verified with the configuration's credentials as any callback. The first result counts.
 *
 * A provider that cannot transfer, or refuses, gives a transfer that is `failed` at once, with its
 * words as the cause: the runtime then goes on with the call.
 */
import type { WebhookRequest, WebhookResponse } from "@agentline/telephony-kit/TelephonyProvider"
import type { TransferMode, TransferResult } from "@agentline/telephony-kit/Transfer"
import { Clock, Effect, Option, Schema } from "effect"
import * as Crypto from "node:crypto"
import { PublicUrls } from "../PublicUrls.js"
import { RunsRepo } from "../runs/RunsRepo.js"
import { InvalidCallbackSignature } from "../telephony/Errors.js"
import type { OutboundRoute } from "../telephony/OutboundRouting.js"
import { OutboundRouting } from "../telephony/OutboundRouting.js"
import { iso } from "../Time.js"
import { type StoredTransfer, TransfersRepo } from "./TransfersRepo.js"

/** A result posted for a transfer this server does not know (or whose provider reports no results). */
export class UnknownTransfer extends Schema.TaggedError<UnknownTransfer>()("UnknownTransfer", { transferId: Schema.String }) {
  override get message() {
    return "Unknown transfer"
  }
}

/** What the runtime asks for. */
export interface TransferRequest {
  readonly target: string
  readonly mode: TransferMode
  readonly timeoutSeconds: number
  /** For a warm transfer, what the person who answers is told first (the node's briefing, rendered). */
  readonly briefing?: string | undefined
}

/** The call being transferred, as the media route knows it. */
export interface TransferredCall {
  readonly organizationId: number
  readonly runId: number
  readonly attemptId: number
  readonly telephonyConfigurationId: number | null
  readonly providerCallId: string
  readonly route: OutboundRoute
}

/** A transfer as the run's `logs.transfer` shows it. */
export const logEntry = (t: StoredTransfer) => ({
  transfer_id: t.transfer_uuid,
  provider: t.provider,
  target: t.target,
  mode: t.mode,
  requested_mode: t.requested_mode,
  status: t.status,
  cause: t.cause,
  started_at: t.started_at,
  ended_at: t.ended_at
})

const OK: WebhookResponse = { status: 200, contentType: "application/json", body: "{}" }

export class Transfers extends Effect.Service<Transfers>()("@agentline/core/Transfers", {
  effect: Effect.gen(function*() {
    const repo = yield* TransfersRepo
    const runs = yield* RunsRepo
    const routing = yield* OutboundRouting
    const urls = yield* PublicUrls

    const toRun = (t: StoredTransfer) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => runs.update(t.run_id, { merge: { logs: { transfer: logEntry(t) } } }, iso(now)))

    /** The first result of a transfer ends it; later ones change nothing (`None`). */
    const record = Effect.fn("Transfers.record")(function*(transferUuid: string, result: TransferResult) {
      const now = yield* Clock.currentTimeMillis
      const done = yield* repo.finish(transferUuid, {
        status: result.outcome,
        cause: result.cause ?? null,
        endedAt: iso(result.at > 0 ? result.at : now)
      })
      if (Option.isSome(done)) yield* toRun(done.value)
      else yield* Effect.logInfo(`transfer ${transferUuid}: a later result (${result.outcome}) changes nothing`)
      return done
    })

    const start = Effect.fn("Transfers.start")(function*(call: TransferredCall, request: TransferRequest) {
      const provider = call.route.provider
      const transfer = provider.calls?.transfer
      const canWarm = provider.transfers?.warm === true
      const mode = request.mode === "warm" && canWarm ? "warm" : "cold"
      const now = yield* Clock.currentTimeMillis
      const stored = yield* repo.insert({
        transfer_uuid: Crypto.randomUUID(),
        organization_id: call.organizationId,
        run_id: call.runId,
        attempt_id: call.attemptId,
        telephony_configuration_id: call.telephonyConfigurationId,
        provider: provider.name,
        provider_call_id: call.providerCallId,
        target: request.target,
        mode,
        requested_mode: request.mode,
        started_at: iso(now)
      })
      yield* toRun(stored)
      const failed = (cause: string) =>
        Effect.map(record(stored.transfer_uuid, { outcome: "failed", at: 0, cause }), Option.getOrElse(() => stored))
      if (transfer === undefined || provider.transfers === undefined) {
        return yield* failed(provider.noTransfers ?? `${provider.displayName} calls cannot be transferred by this adapter`)
      }
      const resultUrl = urls.telephonyTransferResult?.({ transferId: stored.transfer_uuid })
      if (resultUrl === undefined) return yield* failed("this server has no transfer result route")
      const asked = yield* Effect.either(transfer({
        config: call.route.config,
        providerCallId: call.providerCallId,
        target: request.target,
        from: call.route.defaultCallerId ?? call.route.callerIds[0],
        timeoutSeconds: request.timeoutSeconds,
        mode,
        briefing: mode === "warm" ? request.briefing ?? "" : undefined,
        resultUrl,
        onResult: (result) =>
          Effect.asVoid(record(stored.transfer_uuid, result)).pipe(
            Effect.catchAllCause((c) => Effect.logWarning("transfer: result not recorded", c))
          )
      }))
      if (asked._tag === "Left") return yield* failed(`${provider.displayName} refused the transfer: ${asked.left.message}`)
      return stored
    })

    /** A provider's result callback for a transfer: verified with its configuration, then recorded. */
    const result = Effect.fn("Transfers.result")(function*(transferUuid: string, request: WebhookRequest) {
      const found = yield* repo.find(transferUuid)
      if (Option.isNone(found)) return yield* new UnknownTransfer({ transferId: transferUuid })
      const t = found.value
      const route = yield* routing.resolve(t.organization_id, t.telephony_configuration_id).pipe(
        Effect.mapError(() => new UnknownTransfer({ transferId: transferUuid }))
      )
      const webhooks = route.provider.webhooks
      if (webhooks?.parseTransferResult === undefined || route.provider.name !== t.provider) {
        return yield* new UnknownTransfer({ transferId: transferUuid })
      }
      if (!(yield* webhooks.verify({ config: route.config, request }))) return yield* new InvalidCallbackSignature()
      const parsed = yield* webhooks.parseTransferResult({ config: route.config, request }).pipe(Effect.either)
      if (parsed._tag === "Left") {
        yield* Effect.logWarning(`transfer ${transferUuid}: unreadable result: ${parsed.left.message}`)
        return {
          status: 422,
          contentType: "application/json",
          body: JSON.stringify({ detail: parsed.left.message })
        } satisfies WebhookResponse
      }
      if (parsed.right !== undefined) yield* record(transferUuid, parsed.right)
      return webhooks.transferAnswer?.({ result: parsed.right, request, config: route.config }) ?? OK
    })

    const forRun = (runId: number) => Effect.map(repo.forRun(runId), (all) => all.map(logEntry))

    return { start, record, result, forRun } as const
  })
}) {}
