/**
 * The runtime's part of a transfer to a person (`docs/transfer.md`). The conversation reached a
 * transfer node (`graph/Conversation.ts`): its message has been said and heard; here the call's
 * `CallAudio` asks the provider to transfer the call, and the agent's part ends —
 *
 * - the provider took the request: this side leaves the media stream without hanging up (the provider
 *   carries the call on; the result comes to the run's `logs.transfer` by the provider's report);
 * - it was refused (or this server has no transfers): the run's events say why and the call is hung
 *   up, as an end node would.
 *
 * A warm transfer carries a briefing (`briefingText`) that the provider says or plays to the person who
 * answers before the caller joins.
 */
import type { CallAudio, TransferRequest } from "@agentline/core/audio/CallAudio"
import { renderTemplate } from "@agentline/core/workflows/Template"
import { Effect } from "effect"
import type { TransferNode } from "../graph/ConversationGraph.js"
import { type FeedbackEvent, pipelineError } from "../graph/FeedbackEvents.js"
import { templateContext } from "../graph/Prompt.js"

/** What the call knows when it is transferred: the contact's data and what the conversation gathered. */
export interface CallContext {
  readonly initialContext: Readonly<Record<string, unknown>>
  readonly gatheredContext: Readonly<Record<string, unknown>>
}

/** The longest briefing handed to a provider, in characters (Twilio's inline TwiML allows 4,000 in all). */
export const MAX_BRIEFING_CHARS = 1000

/** What the runtime itself writes into the gathered context: not news for the person briefed. */
const BOOKKEEPING = new Set(["call_disposition", "mapped_call_disposition", "call_tags", "end_reason", "outcome"])

const shown = (value: unknown): string | undefined =>
  typeof value === "string" ? (value.trim() === "" ? undefined : value.trim()) : typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : undefined

/**
 * What the person who answers a warm transfer is told before the caller joins: the node's `briefing`
 * rendered with the call's variables (as its message is); when it is empty (or renders empty), a summary:
 * the node's name and each value the conversation gathered (`name: Ann.`), the runtime's own bookkeeping
 * left out. Cut at `MAX_BRIEFING_CHARS`.
 */
export const briefingText = (node: TransferNode, call: CallContext): string => {
  const own = node.data.briefing
  const rendered = typeof own === "string" && own.trim() !== ""
    ? renderTemplate(own, templateContext(call.initialContext, call.gatheredContext)).trim()
    : ""
  const text = rendered !== "" ? rendered : [
    `A caller is being transferred to you from ${node.data.name}.`,
    ...Object.entries(call.gatheredContext).flatMap(([key, value]) => {
      const v = BOOKKEEPING.has(key) ? undefined : shown(value)
      return v === undefined ? [] : [`${key.replace(/_/g, " ")}: ${v}.`]
    })
  ].join(" ")
  return text.length <= MAX_BRIEFING_CHARS ? text : `${text.slice(0, MAX_BRIEFING_CHARS - 1).trimEnd()}…`
}

/** The transfer node's fields, with the catalog's defaults; the briefing for a warm one. */
export const transferRequest = (node: TransferNode, call: CallContext): TransferRequest => {
  const mode = node.data.mode ?? "cold"
  return {
    target: node.data.target.trim(),
    mode,
    timeoutSeconds: node.data.timeout ?? 30,
    ...(mode === "warm" ? { briefing: briefingText(node, call) } : {})
  }
}

/** The call's transfer, recorded in the run's events (`rtf-transfer`); what the run's context gets. */
export const handOver = (
  audio: CallAudio,
  node: TransferNode,
  note: (events: ReadonlyArray<FeedbackEvent>) => Effect.Effect<void>,
  call: CallContext
) =>
  Effect.gen(function*() {
    const request = transferRequest(node, call)
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
        status: started.status,
        ...(started.mode === "warm" && request.briefing !== undefined ? { briefing: request.briefing } : {})
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
