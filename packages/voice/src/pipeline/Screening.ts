/**
 * What the runtime checks in the caller's words besides answering them: an answering machine in the
 * callee's first words (the agent's model asked with the detection prompt), and a request not to be
 * called again (the organization's do-not-call list, with the run as the source; once per call).
 */
import type { DoNotCallRepo } from "@agentline/core/do-not-call/DoNotCallRepo"
import { normalizeForCampaign } from "@agentline/core/phone-numbers/PhoneAddress"
import { iso } from "@agentline/core/Time"
import { Cause, Clock, Context, Effect, Either, Option } from "effect"
import { pipelineError } from "../graph/FeedbackEvents.js"
import { optOutIn, type SessionSettings, saysVoicemail } from "../session/SessionSettings.js"
import type { NamedModel, Tokens } from "./ModelReply.js"
import type { RunEvent } from "./RunEvents.js"

/** Whether the agent's model hears an answering machine in `text` (tokens counted as the agent's). */
export const soundsLikeVoicemail = (options: {
  readonly settings: SessionSettings
  readonly model: Option.Option<NamedModel>
  readonly tokens: Tokens
  readonly note: (events: ReadonlyArray<RunEvent>) => Effect.Effect<void>
}, text: string): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const detection = options.settings.voicemail
    if (detection === undefined || !detection.useLanguageModel || Option.isNone(options.model)) return false
    const response = yield* options.model.value.model.generateText({
      prompt: [{ role: "system", content: detection.systemPrompt }, { role: "user", content: text }]
    })
    options.tokens.inputTokens += response.usage.inputTokens ?? 0
    options.tokens.outputTokens += response.usage.outputTokens ?? 0
    return saysVoicemail(response.text)
  }).pipe(Effect.catchAllCause((cause) =>
    Cause.isInterruptedOnly(cause)
      ? Effect.interrupt
      : Effect.as(options.note([pipelineError(`voicemail detection failed: ${Cause.pretty(cause).split("\n")[0]}`, false)]), false)
  ))

export interface OptOutCall {
  readonly run: { readonly id: number; readonly organization_id: number; readonly call_type?: string | null }
  readonly initialContext: Readonly<Record<string, unknown>>
  readonly settings: SessionSettings
}

/**
 * Puts the caller on the do-not-call list when `text` asks for it (once per call): returns the keys to
 * add to the gathered context.
 */
export const makeOptOut = (
  doNotCall: Option.Option<Context.Tag.Service<typeof DoNotCallRepo>>,
  call: OptOutCall,
  note: (events: ReadonlyArray<RunEvent>) => Effect.Effect<void>
) => {
  let optedOut = false
  return (text: string): Effect.Effect<Readonly<Record<string, unknown>>> =>
    Effect.gen(function*() {
      if (optedOut || Option.isNone(doNotCall)) return {}
      const phrase = optOutIn(text, call.settings.optOutPhrases)
      if (phrase === undefined) return {}
      optedOut = true
      const context = call.initialContext
      const number = String((call.run.call_type === "inbound" ? context.caller_number : context.called_number) ?? context.phone_number ?? "")
      const normalized = normalizeForCampaign(number)
      if (Either.isLeft(normalized)) {
        yield* note([pipelineError(`the caller asked not to be called ("${phrase}") but their number is unknown`, false)])
        return {}
      }
      yield* doNotCall.value.add(call.run.organization_id, [{
        phone_number: normalized.right,
        reason: `asked during the call: "${text.slice(0, 200)}"`,
        source: "run",
        run_id: call.run.id
      }], iso(yield* Clock.currentTimeMillis))
      yield* note([{ type: "rtf-do-not-call", payload: { phrase, phone_number: normalized.right } }])
      return { do_not_call_requested: true }
    })
}
