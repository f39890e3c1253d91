/**
 * The runtime's part of a transfer to a person (`docs/transfer.md`). The conversation reached a
 * transfer node (`graph/Conversation.ts`): its message has been said and heard; here the call's
 * `CallAudio` asks the provider to transfer the call, and the agent's part ends —
 *
 * - the provider took the request: this side leaves the media stream without hanging up (the provider
 *   carries the call on; the result comes to the run's `logs.transfer` by the provider's report);
 * - it was refused (or this server has no transfers): the run's events say why and the call is hung
 *   up, as an end node would.
 */
import type { CallAudio } from "@agentline/core/audio/CallAudio"
import { Effect } from "effect"
import type { TransferNode } from "../graph/ConversationGraph.js"
import { type FeedbackEvent, pipelineError } from "../graph/FeedbackEvents.js"

/** The transfer node's fields, with the catalog's defaults. */
export const transferRequest = (node: TransferNode) => ({
  target: node.data.target.trim(),
  mode: node.data.mode ?? "cold",
  timeoutSeconds: node.data.timeout ?? 30
})

/** The call's transfer, recorded in the run's events (`rtf-transfer`); what the run's context gets. */
export const handOver = (audio: CallAudio, node: TransferNode, note: (events: ReadonlyArray<FeedbackEvent>) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const request = transferRequest(node)
    if (audio.transfer === undefined || audio.leave === undefined) {
      const why = "transfers are not available on this server: the call is ended instead"
      yield* note([pipelineError(why, false)])
      yield* audio.hangUp
      return { transfer_status: "failed", transfer_target: request.target }
    }
    const started = yield* audio.transfer(request)
    yield* note([{
      type: "rtf-transfer",
      payload: {
        node_id: node.id,
        node_name: node.data.name,
        transfer_id: started.transferId,
        target: request.target,
        mode: started.mode,
        status: started.status
      }
    }])
    if (started.status === "failed") {
      yield* note([pipelineError(`the transfer failed: ${started.cause ?? "no reason given"}; the call is ended`, false)])
      yield* audio.hangUp
    } else {
      yield* audio.leave
    }
    return { transfer_id: started.transferId, transfer_target: request.target, transfer_status: started.status }
  })
