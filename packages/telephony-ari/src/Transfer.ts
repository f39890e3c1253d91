/**
 * Asterisk transfers (cold). ARI has no verb that hands a call over: the adapter does it with the
 * channels and bridges it already uses —
 *
 * 1. the target is dialed as a second channel into the same Stasis application (`POST /ari/channels`:
 *    the target's dial string as for any call, `app`, `appArgs=transfer_of=<call>`, `originator` = the
 *    caller's channel, `timeout` = the transfer's ring time, `callerId`), with an id of ours
 *    (`<call>-transfer`); the caller hears ringing meanwhile (`POST /ari/channels/{call}/ring`);
 * 2. the agent's media leg (the call's externalMedia channel) is hung up: the agent's part ends;
 * 3. the target's channel entering Stasis (`StasisStart`: it answered) is added to the call's mixing
 *    bridge (`POST /ari/bridges/{id}/addChannel`): caller and person talk. Result `answered`.
 *    Its `ChannelDestroyed` without an answer is the result by its Q.850 cause (`transferOutcome`), and
 *    the caller's call is hung up (nobody took it); the agent does not come back.
 *
 * Asterisk reports all of this over the application's events WebSocket, so the result comes in-process
 * (`TransferCall.onResult`), once; there is no HTTP callback. Whichever of the two hangs up, the other
 * is hung up too (a Stasis bridge does not end a call by itself). The process asked must be the one
 * holding the application's events WebSocket (it hears the target's channel); another process refuses
 * the transfer, not retryable.
 */
import type { TransferCall, TransferOutcome, TransferResult } from "@agentline/telephony-kit/Transfer"
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either } from "effect"
import { causeText, DEFAULT_DIAL_STRING, dialString, timestampMillis } from "./Calls.js"
import type { Call, Channels, Transfer } from "./Channels.js"
import type { AriConfig } from "./Config.js"
import * as AriRest from "./Rest.js"

/** The `appArgs` of a transfer's channel: which call it is for (never an attempt: it is no call of ours). */
export const transferArgs = (callChannelId: string) => `transfer_of=${callChannelId}`

/** The id of a call's transfer channel: one transfer per call (the agent leaves with it). */
export const transferChannelId = (callChannelId: string) => `${callChannelId}-transfer`

/**
 * The result of a target that never answered, from its channel's Q.850 cause: 17 user busy is busy;
 * 18 no user response, 19 no answer, 20 subscriber absent and 21 call rejected (the person declined)
 * are no_answer; so is an end without a telling cause (none, 0, 16 normal clearing) once the ring time
 * is over (the originate `timeout` ran out); anything else (1 unallocated, 3 no route, 27 out of order,
 * 28 invalid format, 34 congestion, 38 network out of order, 41 temporary failure, 127 interworking,
 * 16 before the ring time is over ...) could not be connected: failed.
 */
export const transferOutcome = (cause: number | undefined, ringTimeOver: boolean): TransferOutcome => {
  if (cause === 17) return "busy"
  if (cause === 18 || cause === 19 || cause === 20 || cause === 21) return "no_answer"
  if (ringTimeOver && (cause === undefined || cause === 0 || cause === 16)) return "no_answer"
  return "failed"
}

const refused = (message: string) => new TelephonyError({ provider: "ari", message, retryable: false })

/** The parts of the adapter a transfer works with. */
export interface TransferDeps {
  readonly send: AriRest.Rest["send"]
  readonly channels: Channels
  /** Whether this process holds the events WebSocket of the configuration's application. */
  readonly hears: (config: AriConfig) => Effect.Effect<boolean>
}

/** `calls.transfer`: dial the target into the application, drop the agent's media, bridge on answer. */
export const transfer = (deps: TransferDeps) => (input: TransferCall<AriConfig>): Effect.Effect<void, TelephonyError> =>
  Effect.gen(function*() {
    const { channels, send } = deps
    const { config, providerCallId } = input
    const call = channels.call(providerCallId)
    if (call?.ended !== undefined) return yield* refused(`the call ${providerCallId} is over: it cannot be transferred`)
    if (call === undefined) {
      const found = yield* send({ config, method: "GET", path: `/channels/${encodeURIComponent(providerCallId)}`, what: "look the call up" })
      if (Either.isLeft(found) && found.left.status === 404) return yield* refused(`the call ${providerCallId} is over: it cannot be transferred`)
      return yield* refused(`the call ${providerCallId} is not followed by this process: it cannot be transferred from here`)
    }
    if (!(yield* deps.hears(config))) {
      return yield* refused("this process does not hold the ARI application's events WebSocket: the transfer's channel would go unheard")
    }
    if (call.answeredAt === undefined) return yield* refused(`the call ${providerCallId} is not answered: it cannot be transferred`)
    if (call.transfer !== undefined) return yield* refused(`the call ${providerCallId} is being transferred already`)
    const endpoint = dialString(config.dial_string === "" ? DEFAULT_DIAL_STRING : config.dial_string, input.target)
    if (endpoint === undefined) return yield* refused(`${input.target} cannot be dialed through Asterisk: it is not a dialable address`)

    const channelId = transferChannelId(providerCallId)
    // Known before Asterisk answers: the target's events may come before the reply.
    const transfer: Transfer = {
      channelId,
      call,
      target: input.target,
      onResult: input.onResult,
      timeoutSeconds: input.timeoutSeconds,
      createdAt: undefined,
      answered: false,
      reported: false,
      ended: false
    }
    channels.trackTransfer(transfer)
    const dialed = yield* send({
      config,
      method: "POST",
      path: "/channels",
      query: {
        endpoint,
        app: config.app_name,
        appArgs: transferArgs(providerCallId),
        channelId,
        originator: providerCallId,
        callerId: input.from,
        timeout: String(input.timeoutSeconds)
      },
      what: `transfer the call to ${input.target}`
    }).pipe(Effect.tapError(() => Effect.sync(() => channels.dropTransfer(transfer, false))))
    if (Either.isLeft(dialed)) {
      channels.dropTransfer(transfer, false)
      if (dialed.left.status === 500 && dialed.left.message === "Allocation failed") {
        return yield* refused(`Asterisk could not create a channel to dial ${input.target} (${endpoint}): no such endpoint or trunk (HTTP 500 Allocation failed)`)
      }
      return yield* AriRest.failure(dialed.left, `transfer the call to ${input.target} (${endpoint})`)
    }
    const snapshot = typeof dialed.right === "object" && dialed.right !== null ? dialed.right as Record<string, unknown> : {}
    transfer.createdAt = typeof snapshot.creationtime === "string" ? timestampMillis(snapshot.creationtime, 0) || undefined : undefined
    // Best effort: ringing for the caller, and the agent's media leg gone (the runtime leaves it too).
    yield* Effect.all([
      send({ config, method: "POST", path: `/channels/${encodeURIComponent(providerCallId)}/ring`, what: "ring the caller" }),
      channels.dropMedia(call)
    ], { concurrency: 2, discard: true }).pipe(Effect.ignore)
  })

/** Reports a transfer's result, once. */
const report = (transfer: Transfer, result: TransferResult) =>
  Effect.suspend(() => {
    if (transfer.reported) return Effect.void
    transfer.reported = true
    return transfer.onResult(result)
  })

const hangUp = (send: AriRest.Rest["send"], config: AriConfig, channelId: string, what: string) =>
  send({ config, method: "DELETE", path: `/channels/${encodeURIComponent(channelId)}`, query: { reason: "normal" }, what }).pipe(Effect.ignore)

/**
 * The person answered: the caller joins them in the call's bridge. The person may have hung up already
 * (the bridge then fails, the result is still `answered`); a bridge that fails otherwise is `failed`,
 * and both are hung up.
 */
const connect = (deps: Pick<TransferDeps, "send" | "channels">, transfer: Transfer, now: number) =>
  Effect.gen(function*() {
    const { channels, send } = deps
    const { call } = transfer
    const config = call.config
    if (call.ended !== undefined) {
      // The caller hung up while the person's phone rang: nobody to talk to.
      yield* report(transfer, { outcome: "failed", at: now, cause: "the caller hung up before the target answered" })
      return yield* hangUp(send, config, transfer.channelId, "hang up the transfer")
    }
    const bridged = yield* channels.bridgeTransfer(transfer)
    if (bridged) {
      yield* send({ config, method: "DELETE", path: `/channels/${encodeURIComponent(call.channelId)}/ring`, what: "stop ringing" }).pipe(Effect.ignore)
      return yield* report(transfer, { outcome: "answered", at: now, cause: "StasisStart (channel Up)" })
    }
    if (transfer.ended) return yield* report(transfer, { outcome: "answered", at: now, cause: "StasisStart (channel Up); the target hung up before it was bridged" })
    if (call.ended !== undefined) return yield* report(transfer, { outcome: "failed", at: now, cause: "the caller hung up before the target was bridged" })
    yield* report(transfer, { outcome: "failed", at: now, cause: "the target answered but could not be bridged with the caller" })
    yield* hangUp(send, config, transfer.channelId, "hang up the transfer")
    yield* hangUp(send, config, call.channelId, "hang up the call")
  })

/** An event of a transfer's channel (`Application.handle` routes them here). */
export const onTransferEvent = (deps: Pick<TransferDeps, "send" | "channels">, transfer: Transfer, event: Record<string, unknown>, now: number) =>
  Effect.gen(function*() {
    const { channels, send } = deps
    const { call } = transfer
    const config = call.config
    switch (event.type) {
      case "StasisStart": {
        if (transfer.answered || transfer.ended) return
        transfer.answered = true
        // Bridged aside: the application's other events go on meanwhile (this one's end included).
        return yield* Effect.forkDaemon(connect(deps, transfer, now))
      }
      case "ChannelDestroyed": {
        if (transfer.ended) return
        transfer.ended = true
        channels.dropTransfer(transfer, true)
        if (!transfer.answered) {
          const cause = typeof event.cause === "number" ? event.cause : undefined
          const stamp = timestampMillis(event.timestamp, 0)
          const ringTimeOver = transfer.createdAt !== undefined && stamp > 0 && stamp - transfer.createdAt >= transfer.timeoutSeconds * 1000
          yield* report(transfer, {
            outcome: transferOutcome(cause, ringTimeOver),
            at: now,
            cause: causeText(cause, event.cause_txt) ?? "ChannelDestroyed without a cause"
          })
        }
        // Nobody took the caller, or the person hung up: the caller's call ends too.
        if (call.ended === undefined) yield* hangUp(send, config, call.channelId, "hang up the call")
        return
      }
      default:
        return
    }
  })

/** The caller's call ended: a transfer still ringing or talking is hung up (and reported, if it was not). */
export const onCallEnded = (deps: Pick<TransferDeps, "send">, call: Call, now: number) =>
  Effect.gen(function*() {
    const transfer = call.transfer
    if (transfer === undefined || transfer.ended) return
    if (!transfer.answered) yield* report(transfer, { outcome: "failed", at: now, cause: "the caller hung up before the target answered" })
    yield* hangUp(deps.send, call.config, transfer.channelId, "hang up the transfer")
  })
