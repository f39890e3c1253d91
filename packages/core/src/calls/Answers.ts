/**
 * What a provider asks when a call of ours is answered ("what now?"): the request is verified like a
 * status callback, the progress it reports is applied like one (Twilio's answer request says the call
 * is in progress, and who answered when machine detection ran), and the answer is the provider's own
 * document for the instruction: connect the call's audio to a media stream of this server, keep the
 * line open when no voice runtime serves it, or hang up (an answering machine, or an attempt that is
 * already over).
 */
import { AttemptId } from "@agentline/api/Ids"
import { Effect, Option } from "effect"
import { Dispatcher } from "../dispatcher/Dispatcher.js"
import { DispatchRepo } from "../dispatcher/DispatchRepo.js"
import { OutboundRouting } from "../telephony/OutboundRouting.js"
import type { CallEvent, CallInstruction, WebhookRequest, WebhookResponse } from "@agentline/telephony-kit/TelephonyProvider"
import { InvalidCallbackSignature, UnknownCall } from "./Errors.js"

/** The instruction for an answered call, given what the answer request reported. */
export const instructionFor = (
  input: {
    readonly open: boolean
    readonly events: ReadonlyArray<CallEvent>
    readonly whenAnswered: Exclude<CallInstruction, { readonly _tag: "Reject" }>
  }
): CallInstruction => {
  if (!input.open) return { _tag: "Reject", reason: "" }
  const machine = input.events.some((e) => e.type === "answered" && (e.answeredBy === "machine" || e.answeredBy === "fax"))
  return machine ? { _tag: "Reject", reason: "" } : input.whenAnswered
}

export class CallAnswers extends Effect.Service<CallAnswers>()("@agentline/core/CallAnswers", {
  effect: Effect.gen(function*() {
    const dispatch = yield* DispatchRepo
    const dispatcher = yield* Dispatcher
    const routing = yield* OutboundRouting

    const answer = Effect.fn("CallAnswers.answer")(function*(provider: string, id: number, request: WebhookRequest) {
      const attemptId = AttemptId.make(id)
      const attempt = yield* dispatch.findAttempt(attemptId)
      if (Option.isNone(attempt) || attempt.value.provider !== provider) return yield* new UnknownCall({ attemptId })
      const route = yield* routing.resolve(attempt.value.organizationId, attempt.value.telephonyConfigurationId).pipe(
        Effect.mapError(() => new UnknownCall({ attemptId }))
      )
      const webhooks = route.provider.webhooks
      if (webhooks === undefined) return yield* new UnknownCall({ attemptId })
      if (!(yield* webhooks.verify({ config: route.config, request }))) return yield* new InvalidCallbackSignature()
      // A request that reports nothing we understand still gets its answer.
      const events = yield* webhooks.parseStatus({ config: route.config, request }).pipe(
        Effect.catchAll((e) => Effect.as(Effect.logWarning(`answer request of attempt ${id}: ${e.message}`), []))
      )
      yield* Effect.forEach(events, (event) => dispatcher.handleEvent(attemptId, event, { durable: true }), { discard: true })
      const current = yield* dispatch.findAttempt(attemptId)
      const open = Option.isSome(current) && (current.value.state === "claimed" || current.value.state === "dialing")
      const instruction = instructionFor({ open, events, whenAnswered: yield* route.calls.whenAnswered(attemptId) })
      return webhooks.answer({ config: route.config, instruction }) satisfies WebhookResponse
    })

    return { answer } as const
  })
}) {}
