/**
 * Acme's `calls`:
 *
 *   POST /v1/accounts/{account}/calls              place a call, the call flow inline (Idempotency-Key: our attempt id)
 *   POST /v1/accounts/{account}/calls/{id}/hangup  hang up (404/409: already over, which is what hanging up wants)
 *   GET  /v1/accounts/{account}/calls/{id}         how the call went, for recovery
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import type { CallStatus, PlaceCall, ProviderCalls } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either, Schema } from "effect"
import * as Answer from "./Answer.js"
import { AcmeStatus, finalOutcomes } from "./Callbacks.js"
import type { AcmeConfig } from "./Config.js"
import * as Rest from "./Rest.js"

const CallResource = Schema.Struct({ id: Schema.String, status: AcmeStatus, duration: Schema.optional(Schema.NonNegative) })

const callsOf = (config: AcmeConfig) => `/accounts/${encodeURIComponent(config.account_id)}/calls`

export const make = (rest: Rest.Rest): ProviderCalls<AcmeConfig> => {
  const place = (input: PlaceCall<AcmeConfig>) =>
    Effect.gen(function*() {
      const what = `place the call to ${input.to}`
      const placed = yield* rest.send({
        apiKey: input.config.api_key,
        method: "POST",
        path: callsOf(input.config),
        // The attempt id makes a re-sent request (after a timeout) find the call it already placed.
        idempotencyKey: `agentline-${input.attemptId}`,
        body: {
          to: input.to,
          ...(input.from !== undefined ? { from: input.from } : {}),
          status_callback: input.callbackUrl,
          client_reference: String(input.attemptId),
          // What Acme runs once the callee answers.
          actions: Answer.actions(input.whenAnswered)
        },
        schema: CallResource,
        what
      })
      if (Either.isLeft(placed)) return yield* Rest.failure(placed.left, what)
      return { providerCallId: placed.right.id }
    })

  const hangUp = ({ config, providerCallId }: { readonly config: AcmeConfig; readonly providerCallId: string }) =>
    Effect.gen(function*() {
      const done = yield* rest.send({
        apiKey: config.api_key,
        method: "POST",
        path: `${callsOf(config)}/${encodeURIComponent(providerCallId)}/hangup`,
        schema: Schema.Unknown,
        what: "hang up the call"
      })
      // A call that is over already: the goal is reached.
      if (Either.isLeft(done) && done.left.status !== 404 && done.left.status !== 409) return yield* Rest.failure(done.left, "hang up the call")
    })

  /** `get` has no error channel and Unknown means "never re-dial": transient failures are tried again, the rest is Unknown. */
  const get = ({ config, providerCallId }: { readonly config: AcmeConfig; readonly providerCallId: string }) =>
    ProviderRest.lookUpCall(
      rest.send({
        apiKey: config.api_key,
        method: "GET",
        path: `${callsOf(config)}/${encodeURIComponent(providerCallId)}`,
        schema: CallResource,
        what: "look the call up"
      }),
      (f) => Rest.failure(f, "look the call up"),
      (call): CallStatus => {
        const outcome = finalOutcomes[call.status]
        if (outcome === undefined) return { _tag: "InProgress" }
        return { _tag: "Ended", outcome, durationSeconds: outcome === "completed" || outcome === "voicemail" ? call.duration ?? 0 : 0 }
      }
    )

  return { place, hangUp, get }
}
