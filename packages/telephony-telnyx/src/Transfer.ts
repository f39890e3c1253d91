/**
 * Telnyx transfers (cold), over Call Control:
 *
 *   POST /v2/calls/{call_control_id}/actions/transfer
 *        {to, from, timeout_secs, webhook_url: <result URL>, webhook_url_method: "POST",
 *         target_leg_client_state: base64 JSON {"agentline_transfer_of": <the caller's call_control_id>}}
 *
 * Telnyx dials the target as a new leg (B) and bridges the caller to it. B's webhooks go to the result
 * URL (`webhook_url`), signed as every Telnyx webhook: `call.initiated`, `call.bridged`, then
 * `call.answered` or `call.hangup` (with `hangup_cause`). `target_leg_client_state` comes back in each
 * of them: it tells B's webhooks from any other and names the caller's leg.
 *
 * A transfer nobody takes leaves the caller's leg up ("the original call will remain active", Telnyx
 * says): the adapter then hangs it up, as the application's contract wants (the agent does not come
 * back). A command on a call that is over is refused (422, code 90018): not retryable. Warm transfers
 * are not done.
 */
import { type TransferCall, type TransferResult } from "@agentline/telephony-kit/Transfer"
import { TelephonyError, type WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { Clock, Effect, Either } from "effect"
import { decodeWebhook, describeCause, eventType, unansweredOutcome, type Webhook } from "./Callbacks.js"
import * as ClientState from "./ClientState.js"
import type { TelnyxConfig } from "./Config.js"
import * as Rest from "./Rest.js"

/** The key of the transferred leg's `client_state`: the caller's call control id. */
export const TRANSFER_KEY = "agentline_transfer_of"

/** Telnyx takes 5 to 600 seconds of ringing. */
export const ringSeconds = (seconds: number) => Math.min(600, Math.max(5, Math.round(seconds)))

/** The body of the transfer command. */
export const transferBody = (input: Pick<TransferCall<unknown>, "providerCallId" | "target" | "from" | "timeoutSeconds" | "resultUrl">) => ({
  to: input.target,
  ...(input.from !== undefined ? { from: input.from } : {}),
  timeout_secs: ringSeconds(input.timeoutSeconds),
  webhook_url: input.resultUrl,
  webhook_url_method: "POST",
  target_leg_client_state: ClientState.encode({ [TRANSFER_KEY]: input.providerCallId })
})

/**
 * A webhook posted to a transfer's result URL, read (pure): the transferred leg's result and the
 * caller's leg it names. `result` is undefined for progress (`call.initiated`, `call.bridged`) and for
 * webhooks that are not about a transferred leg.
 */
export const resultOf = (webhook: Webhook, now: number): { readonly result: TransferResult | undefined; readonly caller: string | undefined } => {
  const payload = webhook.data.payload
  const caller = ClientState.decode(payload.client_state)[TRANSFER_KEY]
  if (caller === undefined) return { result: undefined, caller }
  const at = webhook.data.occurred_at == null ? Number.NaN : Date.parse(webhook.data.occurred_at)
  const when = Number.isFinite(at) ? at : now
  switch (eventType(webhook)) {
    case "call.answered":
      return { result: { outcome: "answered", at: when, cause: "call.answered" }, caller }
    case "call.hangup": {
      const ended = unansweredOutcome(payload.hangup_cause)
      const outcome = ended === "completed" ? "answered" : ended === "busy" || ended === "no_answer" ? ended : "failed"
      return { result: { outcome, at: when, cause: `call.hangup: ${describeCause(payload) ?? "no cause"}` }, caller }
    }
    default:
      return { result: undefined, caller }
  }
}

export const transfer = (rest: Rest.Rest) => (input: TransferCall<TelnyxConfig>) =>
  Effect.gen(function*() {
    const what = `transfer the call to ${input.target}`
    const sent = yield* rest.send({
      apiKey: input.config.api_key,
      method: "POST",
      path: `/calls/${encodeURIComponent(input.providerCallId)}/actions/transfer`,
      body: transferBody(input),
      schema: Rest.CommandResult,
      what
    })
    if (Either.isRight(sent)) return
    if (sent.left.code === Rest.CALL_ENDED || sent.left.status === 404) {
      return yield* new TelephonyError({ provider: "telnyx", message: "Telnyx cannot transfer the call: it is over", retryable: false })
    }
    return yield* Rest.failure(sent.left, what)
  })

/**
 * `webhooks.parseTransferResult`: the result of a transferred leg's webhook. When nobody took the
 * caller (busy, no answer, failed), the caller's leg, which Telnyx leaves up, is hung up.
 */
export const parseTransferResult = (hangUp: (input: { readonly config: TelnyxConfig; readonly providerCallId: string }) => Effect.Effect<void, TelephonyError>) =>
({ config, request }: { readonly config: TelnyxConfig; readonly request: WebhookRequest }) =>
  Effect.gen(function*() {
    const webhook = decodeWebhook(request.rawBody)
    if (Either.isLeft(webhook)) return yield* webhook.left
    const { caller, result } = resultOf(webhook.right, yield* Clock.currentTimeMillis)
    if (result !== undefined && result.outcome !== "answered" && caller !== undefined) {
      yield* hangUp({ config, providerCallId: caller }).pipe(
        Effect.catchAll((e) => Effect.logWarning(`telnyx: could not hang up ${caller} after its transfer was not taken: ${e.message}`))
      )
    }
    return result
  })
