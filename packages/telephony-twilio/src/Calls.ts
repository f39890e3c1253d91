/**
 * Twilio's `calls`: `POST Calls.json` with `Url` (our answer route: TwiML `<Connect><Stream>`),
 * `StatusCallback` for every progress event, and `MachineDetection=Enable` when `amd_enabled`; hang-up
 * by updating the call's `Status`; recovery by fetching the call.
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import { type CallStatus, type PlaceCall, type ProviderCalls, TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either } from "effect"
import * as Callbacks from "./Callbacks.js"
import type { TwilioConfig } from "./Config.js"
import * as Rest from "./Rest.js"
import { transfer } from "./Transfer.js"

/** Every progress event Twilio can report, so the run's log shows the whole call. */
export const STATUS_EVENTS = ["initiated", "ringing", "answered", "completed"] as const

const refused = (message: string) => new TelephonyError({ provider: "twilio", message, retryable: false })

export const make = (rest: Rest.Rest): ProviderCalls<TwilioConfig> => {
  const place = (input: PlaceCall<TwilioConfig>) =>
    Effect.gen(function*() {
      if (input.from === undefined) {
        return yield* refused("Twilio needs a caller id: add a phone number of this Twilio account to the configuration")
      }
      const params: Array<readonly [string, string]> = [
        ["To", input.to],
        ["From", input.from],
        ["Url", input.answerUrl],
        ["Method", "POST"],
        ["StatusCallback", input.callbackUrl],
        ["StatusCallbackMethod", "POST"],
        ...STATUS_EVENTS.map((event) => ["StatusCallbackEvent", event] as const)
      ]
      if (input.config.amd_enabled) params.push(["MachineDetection", "Enable"])
      const created = yield* rest.send({
        credentials: input.config,
        method: "POST",
        path: "/Calls.json",
        params,
        schema: Rest.CallResource,
        what: "place the call"
      })
      if (Either.isLeft(created)) return yield* Rest.failure(created.left, "place the call")
      return { providerCallId: created.right.sid }
    })

  const fetchCall = (config: TwilioConfig, providerCallId: string) =>
    rest.send({
      credentials: config,
      method: "GET",
      path: `/Calls/${encodeURIComponent(providerCallId)}.json`,
      schema: Rest.CallResource,
      what: "look the call up"
    })

  /** Transient failures are tried again here: `get` has no error channel, and Unknown means "never re-dial". */
  const get = ({ config, providerCallId }: { readonly config: TwilioConfig; readonly providerCallId: string }) =>
    ProviderRest.lookUpCall(fetchCall(config, providerCallId), (f) => Rest.failure(f, "look the call up"), (call): CallStatus => {
      const outcome = Callbacks.outcomeOf(call.status, call.answered_by ?? undefined)
      if (outcome === undefined) return { _tag: "InProgress" }
      const duration = Number(call.duration ?? "0")
      return { _tag: "Ended", outcome, durationSeconds: Number.isFinite(duration) ? duration : 0 }
    })

  /** A call still queued or ringing is canceled, one in progress completed; one already over is left alone. */
  const hangUp = ({ config, providerCallId }: { readonly config: TwilioConfig; readonly providerCallId: string }) =>
    Effect.gen(function*() {
      const found = yield* fetchCall(config, providerCallId)
      if (Either.isLeft(found)) return yield* Rest.failure(found.left, "hang up the call")
      const status = found.right.status
      if (Callbacks.outcomeOf(status, undefined) !== undefined) return
      const updated = yield* rest.send({
        credentials: config,
        method: "POST",
        path: `/Calls/${encodeURIComponent(providerCallId)}.json`,
        params: [["Status", status === "in-progress" ? "completed" : "canceled"]],
        schema: Rest.CallResource,
        what: "hang up the call"
      })
      if (Either.isLeft(updated)) return yield* Rest.failure(updated.left, "hang up the call")
    })

  return { place, hangUp, get, transfer: transfer(rest) }
}
