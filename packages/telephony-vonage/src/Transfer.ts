/**
 * Vonage transfers (cold): the live call is moved to a new NCCO —
 *
 *   PUT /v1/calls/{uuid}   {"action": "transfer", "destination": {"type": "ncco", "ncco": [
 *     {"action": "connect", "from": <caller id>, "timeout": <ring seconds>,
 *      "endpoint": [{"type": "phone", "number": <digits>} | {"type": "sip", "uri": <URI>}],
 *      "eventUrl": [<result URL>], "eventMethod": "POST"}]}}
 *
 * — which leaves the conversation the agent's WebSocket is in and connects the caller to the target.
 * The new leg's events (`started`, `ringing`, `answered`, then `completed`, or `busy`, `rejected`,
 * `timeout`, `unanswered`, `failed`, `cancelled`) go to the connect's `eventUrl`, the result URL,
 * signed as every Vonage webhook. When the connect ends (unanswered, or the person hung up) the NCCO
 * has run out and Vonage ends the caller's call itself. A call that is over cannot be transferred
 * (Vonage refuses with 4xx), not retryable. Warm transfers are not done.
 */
import { TelephonyError, type WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import type { TransferCall, TransferOutcome, TransferResult } from "@agentline/telephony-kit/Transfer"
import { Clock, Effect, Either, Schema } from "effect"
import { applicationToken, endpointOf } from "./Calls.js"
import type { VonageConfig } from "./Config.js"
import * as Rest from "./Rest.js"

/** The NCCO the call is transferred to: a `connect` of the target reporting to the result URL. */
export const transferNcco = (input: Pick<TransferCall<unknown>, "target" | "from" | "timeoutSeconds" | "resultUrl">) => {
  const endpoint = endpointOf(input.target)
  const from = input.from === undefined ? undefined : endpointOf(input.from)
  return endpoint === undefined ? undefined : [{
    action: "connect",
    ...(from?.type === "phone" ? { from: from.number } : { randomFromNumber: true }),
    timeout: Math.max(1, Math.round(input.timeoutSeconds)),
    endpoint: [endpoint],
    eventUrl: [input.resultUrl],
    eventMethod: "POST"
  }]
}

const OUTCOMES: Record<string, TransferOutcome> = {
  answered: "answered",
  completed: "answered",
  busy: "busy",
  rejected: "busy",
  timeout: "no_answer",
  unanswered: "no_answer",
  failed: "failed",
  cancelled: "failed"
}

/**
 * An event of the transferred leg (the JSON body at the result URL) as the transfer's result (pure):
 * undefined for progress (`started`, `ringing`) and for events without a status; a string when the body
 * is not a Vonage event.
 */
export const parseResult = (rawBody: string, now: number): TransferResult | undefined | string => {
  let body: unknown
  try {
    body = JSON.parse(rawBody)
  } catch {
    return "a Vonage transfer event that is not JSON"
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "a Vonage transfer event that is not a JSON object"
  const event = body as Record<string, unknown>
  const status = typeof event.status === "string" ? event.status.toLowerCase() : undefined
  if (status === undefined) return undefined
  const outcome = OUTCOMES[status]
  if (outcome === undefined) return undefined
  const detail = typeof event.detail === "string" && event.detail !== "" ? `: ${event.detail}` : ""
  return { outcome, at: now, cause: `status=${status}${detail}` }
}

export const transfer = (rest: Rest.Rest) => (input: TransferCall<VonageConfig>) =>
  Effect.gen(function*() {
    const ncco = transferNcco(input)
    if (ncco === undefined) {
      return yield* new TelephonyError({ provider: "vonage", message: `Vonage cannot connect ${input.target}: only phone numbers and SIP URIs`, retryable: false })
    }
    const token = yield* applicationToken(input.config)
    const what = `transfer the call to ${input.target}`
    const done = yield* rest.send({
      api: "voice",
      auth: { _tag: "Bearer", token },
      method: "PUT",
      path: `/v1/calls/${encodeURIComponent(input.providerCallId)}`,
      json: { action: "transfer", destination: { type: "ncco", ncco } },
      schema: Schema.Unknown,
      what
    })
    if (Either.isLeft(done)) return yield* Rest.failure(done.left, what)
  })

/** `webhooks.parseTransferResult`: the transferred leg's event at the result URL. */
export const parseTransferResult = ({ request }: { readonly config: VonageConfig; readonly request: WebhookRequest }) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const parsed = parseResult(new TextDecoder().decode(request.rawBody), now)
    return typeof parsed === "string"
      ? Effect.fail(new TelephonyError({ provider: "vonage", message: parsed, retryable: false }))
      : Effect.succeed(parsed)
  })
